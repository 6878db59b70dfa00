package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamWriteFeature;

/** The one JSON factory of the CLI: output is UTF-8, printed as-is (no auto-closing of stdout). */
final class Json {
    static final JsonFactory FACTORY =
            JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private Json() {}
}
