package dev.lanceflink.s3;

import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.core.exception.RetryableException;

/**
 * Reads response bodies into exact-size arrays. A body that breaks off or ends early is thrown as
 * {@link RetryableException}: the SDK retries the whole request for that exception type only,
 * while any other exception from a response transformer ends the call at once.
 */
final class S3Bodies {
    private S3Bodies() {}

    /**
     * @param what the request, for the message, e.g. {@code GET s3://b/k bytes=0-99}
     */
    static byte[] readExactly(InputStream in, long expectedLength, String what) {
        if (expectedLength < 0 || expectedLength > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException(what + " has a body of " + expectedLength
                    + " bytes, which does not fit one array; read it with a range reader");
        }
        int length = (int) expectedLength;
        byte[] buf = new byte[length];
        int n = 0;
        try {
            while (n < length) {
                int r = in.read(buf, n, length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
        } catch (IOException e) {
            throw RetryableException.builder()
                    .message(
                            "Body of " + what + " broke off after " + n + " of " + length + " bytes: " + e.getMessage())
                    .cause(e)
                    .build();
        }
        if (n < length) {
            throw RetryableException.builder()
                    .message("Body of " + what + " ended after " + n + " of " + length + " bytes")
                    .build();
        }
        return buf;
    }
}
