package dev.lanceflink.encoding.compression;

/**
 * Encoded bytes handed to a codec of this package are malformed: a buffer shorter than its
 * header or contents require, a bit width or value count outside what the scheme allows, run
 * lengths that do not cover the requested values, or a compressed stream the library rejects.
 *
 * <p>Unchecked because these codecs are pure byte transforms without I/O. Readers catch it at the
 * page level and rethrow with the file, column and page in the message; the message of this
 * exception already says which scheme, which field or offset inside the buffer, and what was
 * expected.
 */
public class CompressedDataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CompressedDataException(String message) {
        super(message);
    }

    public CompressedDataException(String message, Throwable cause) {
        super(message, cause);
    }
}
