package dev.lanceflink.flink.table;

import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The options of {@code 'connector' = 'lance'} tables. Keys only; {@link LanceDynamicTableFactory} reads them. */
public final class LanceConnectorOptions {
    private LanceConnectorOptions() {}

    public static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue()
            .withDescription("Location of the Lance table: a local path, file:// or s3:// URI.");

    public static final ConfigOption<Long> VERSION = ConfigOptions.key("version").longType().noDefaultValue()
            .withDescription("Read this table version (time travel). Exclusive with 'as-of'. Default: the latest "
                    + "version when the query is planned.");

    public static final ConfigOption<String> AS_OF = ConfigOptions.key("as-of").stringType().noDefaultValue()
            .withDescription("Read the newest version committed at or before this instant: ISO-8601 with an offset "
                    + "(e.g. '2026-11-29T21:00:00Z') or epoch milliseconds. Exclusive with 'version'.");

    public static final ConfigOption<Integer> SCAN_BATCH_SIZE = ConfigOptions.key("scan.batch-size").intType()
            .defaultValue(8192).withDescription("Rows per Arrow batch the reader decodes at a time.");

    public static final ConfigOption<Long> SCAN_ROWS_PER_SPLIT = ConfigOptions.key("scan.rows-per-split").longType()
            .defaultValue(1L << 20).withDescription("Fragments larger than this many physical rows are read as "
                    + "several splits, in parallel.");

    public static final ConfigOption<Map<String, String>> VECTOR_DIMENSIONS = ConfigOptions.key("vector-dimensions")
            .mapType().noDefaultValue().withDescription("ARRAY columns stored as fixed-size vectors, with their "
                    + "dimension: 'embedding:768,image.clip:512' (nested columns by dotted path). Used when writing.");

    /**
     * Prefix of object-store options passed through unchanged (without the prefix), e.g.
     * {@code 'storage.aws_region' = 'eu-west-1'} becomes the storage option {@code aws_region}.
     */
    public static final String STORAGE_PREFIX = "storage.";
}
