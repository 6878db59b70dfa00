package dev.lanceflink.table;

import java.io.IOException;

/**
 * The table uses a feature this library does not implement (an unknown feature-flag bit, or the
 * unstable data-overlay feature while it is not enabled). Reading or writing it anyway could
 * return wrong rows or corrupt the table, so the operation is refused.
 */
public class UnsupportedTableFeatureException extends IOException {
    private static final long serialVersionUID = 1L;

    public UnsupportedTableFeatureException(String message) {
        super(message);
    }
}
