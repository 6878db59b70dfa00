package dev.lanceflink.encoding.v21;

/**
 * A structural (2.1+) page cannot be decoded: an unsupported encoding combination or bytes that
 * contradict the page description. Callers wrap it with the file path, column and page.
 */
public final class EncodingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EncodingException(String message) {
        super(message);
    }

    public EncodingException(String message, Throwable cause) {
        super(message, cause);
    }
}
