package dev.lanceflink.io;

import java.io.IOException;

/**
 * A stream from {@link ObjectStore#create} that can be given up: {@link #abort()} publishes
 * nothing, discards what was written and frees resources; a later {@code close()} does nothing.
 * Without it, the only way to abandon a new object is to publish it and delete it again, which
 * briefly shows a half-written file to listings.
 */
public interface AbortableOutputStream {

    /** Discards the object being written; nothing appears at its path. */
    void abort() throws IOException;
}
