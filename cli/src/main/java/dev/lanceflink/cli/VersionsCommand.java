package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import java.io.IOException;
import java.util.Map;

/**
 * {@code versions}: every committed version, oldest first, as
 * {@code {"versions": [{"version", "timestamp", "operation", "num_rows", "properties"}]}};
 * {@code operation} is the transaction's operation name ({@code ""} when the version has no
 * transaction file) and {@code properties} its {@code transaction_properties}.
 */
final class VersionsCommand {

    private VersionsCommand() {}

    static void run(Dataset dataset, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeArrayFieldStart("versions");
        for (VersionInfo v : dataset.versions()) {
            g.writeStartObject();
            g.writeNumberField("version", v.version());
            g.writeStringField("timestamp", v.timestamp().toString());
            g.writeStringField("operation", v.operation());
            g.writeNumberField("num_rows", v.numRows());
            g.writeObjectFieldStart("properties");
            for (Map.Entry<String, String> e : v.properties().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
