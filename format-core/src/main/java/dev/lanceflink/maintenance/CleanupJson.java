package dev.lanceflink.maintenance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** The one JSON writer of this package: plans and results print as indented, stable JSON. */
final class CleanupJson {
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private CleanupJson() {}

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static String write(ObjectNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("Cannot render cleanup JSON", e); // a tree of plain nodes always renders
        }
    }
}
