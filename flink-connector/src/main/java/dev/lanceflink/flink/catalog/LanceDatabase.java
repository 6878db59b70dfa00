package dev.lanceflink.flink.catalog;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.flink.table.catalog.CatalogDatabase;

/**
 * A database of the Lance catalog: a directory of the warehouse. Its comment and properties live
 * in the database's marker object as a UTF-8 properties file ({@code comment=...},
 * {@code property.<key>=...}), readable with any text editor.
 */
record LanceDatabase(Map<String, String> properties, String comment) implements CatalogDatabase {
    private static final String COMMENT_KEY = "comment";
    private static final String PROPERTY_PREFIX = "property.";

    LanceDatabase {
        properties = Map.copyOf(properties);
    }

    static LanceDatabase of(CatalogDatabase database) {
        return database == null
                ? new LanceDatabase(Map.of(), null)
                : new LanceDatabase(database.getProperties(), database.getComment());
    }

    byte[] toMarker() {
        Properties p = new Properties();
        if (comment != null) {
            p.setProperty(COMMENT_KEY, comment);
        }
        properties.forEach((k, v) -> p.setProperty(PROPERTY_PREFIX + k, v));
        StringWriter out = new StringWriter();
        try {
            p.store(out, "Lance catalog database (written by the Flink Lance catalog)");
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads a marker; an empty marker (or one written by another tool) is a database without properties. */
    static LanceDatabase fromMarker(byte[] marker, String where) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(new String(marker, StandardCharsets.UTF_8)));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "The database marker " + where + " is not a properties file: " + e.getMessage()
                            + ". Replace it with an empty file to reset the database's properties",
                    e);
        }
        Map<String, String> props = new TreeMap<>();
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith(PROPERTY_PREFIX)) {
                props.put(key.substring(PROPERTY_PREFIX.length()), p.getProperty(key));
            }
        }
        return new LanceDatabase(props, p.getProperty(COMMENT_KEY));
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public String getComment() {
        return comment;
    }

    @Override
    public CatalogDatabase copy() {
        return this;
    }

    @Override
    public CatalogDatabase copy(Map<String, String> newProperties) {
        return new LanceDatabase(newProperties, comment);
    }

    @Override
    public Optional<String> getDescription() {
        return Optional.ofNullable(comment);
    }

    @Override
    public Optional<String> getDetailedDescription() {
        return getDescription();
    }
}
