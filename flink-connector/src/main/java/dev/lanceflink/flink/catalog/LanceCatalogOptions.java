package dev.lanceflink.flink.catalog;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.CommonCatalogOptions;

/** The options of {@code CREATE CATALOG ... WITH ('type' = 'lance', ...)}. Keys only; {@link LanceCatalogFactory} reads them. */
public final class LanceCatalogOptions {
    private LanceCatalogOptions() {}

    public static final ConfigOption<String> WAREHOUSE = ConfigOptions.key("warehouse")
            .stringType()
            .noDefaultValue()
            .withDescription("Root of the catalog: a local directory, file:// or s3://bucket/prefix URI. Databases are "
                    + "its directories, tables the <table>.lance datasets inside them.");

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key(
                    CommonCatalogOptions.DEFAULT_DATABASE_KEY)
            .stringType()
            .defaultValue("default")
            .withDescription("The database used when a statement names none; created when the catalog opens.");

    /**
     * Prefix of object-store options ({@code 'storage.aws_region' = 'eu-west-1'}), used for the
     * warehouse and passed on to every table of the catalog, as the table factory takes them.
     */
    public static final String STORAGE_PREFIX = "storage.";
}
