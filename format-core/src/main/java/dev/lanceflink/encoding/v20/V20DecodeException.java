package dev.lanceflink.encoding.v20;

import java.io.IOException;

/**
 * A Lance 2.0 column could not be decoded: its page encodings are malformed, contradict the
 * field's type, reference bytes outside their buffers, or use a 2.0 encoding this reader does not
 * implement. The message names the field, column, page and (where it applies) buffer and offset.
 */
public class V20DecodeException extends IOException {
    private static final long serialVersionUID = 1L;

    public V20DecodeException(String message) {
        super(message);
    }

    public V20DecodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
