package dev.lanceflink.flink.table;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.types.LanceTypeException;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.schema.LanceField;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * {@code 'connector' = 'lance'}: Lance tables in Flink SQL.
 *
 * <pre>
 * CREATE TABLE items (id BIGINT, name STRING, embedding ARRAY&lt;FLOAT&gt;,
 *                     addr BIGINT METADATA FROM '_rowaddr' VIRTUAL)
 * WITH ('connector' = 'lance', 'path' = 's3://bucket/items.lance',
 *       'storage.aws_region' = 'eu-west-1', 'version' = '12');
 * </pre>
 *
 * <p>Columns are matched to the table's columns by name; a table may have more columns than the
 * declaration. The version is pinned when a query is planned ({@code 'version'}, {@code 'as-of'},
 * or the latest), and the declared types are checked against that version's schema.
 *
 * <p>Write side: this class implements only {@link DynamicTableSourceFactory}. The sink
 * (exactly-once {@code LanceSink}) is wired here by implementing {@code DynamicTableSinkFactory}
 * next to {@link #createDynamicTableSource}, reusing {@link #optionalOptions()} and
 * {@link LanceConnectorOptions#VECTOR_DIMENSIONS}.
 */
public final class LanceDynamicTableFactory implements DynamicTableSourceFactory {
    public static final String IDENTIFIER = "lance";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(LanceConnectorOptions.PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(LanceConnectorOptions.VERSION, LanceConnectorOptions.AS_OF, LanceConnectorOptions.SCAN_BATCH_SIZE,
                LanceConnectorOptions.SCAN_ROWS_PER_SPLIT, LanceConnectorOptions.VECTOR_DIMENSIONS);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(LanceConnectorOptions.STORAGE_PREFIX);
        ReadableConfig options = helper.getOptions();
        String uri = options.get(LanceConnectorOptions.PATH);
        Map<String, String> storage = storageOptions(context.getCatalogTable().getOptions());
        Optional<Long> version = options.getOptional(LanceConnectorOptions.VERSION);
        Optional<Instant> asOf = options.getOptional(LanceConnectorOptions.AS_OF).map(LanceDynamicTableFactory::instant);
        if (version.isPresent() && asOf.isPresent()) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + " sets both 'version' and 'as-of'"
                    + "; time travel takes one of them");
        }
        options.getOptional(LanceConnectorOptions.VECTOR_DIMENSIONS).ifPresent(VectorDimensions::parse);
        int batchSize = options.get(LanceConnectorOptions.SCAN_BATCH_SIZE);
        long rowsPerSplit = options.get(LanceConnectorOptions.SCAN_ROWS_PER_SPLIT);
        if (batchSize < 1 || rowsPerSplit < 1) {
            throw new ValidationException("'scan.batch-size' and 'scan.rows-per-split' must be positive, got "
                    + batchSize + " and " + rowsPerSplit);
        }
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        List<String> physical = new ArrayList<>();
        try (Dataset latest = Dataset.open(uri, storage)) {
            Dataset at = version.isPresent() ? latest.checkoutVersion(version.get())
                    : asOf.isPresent() ? latest.checkoutAsOf(asOf.get()) : latest;
            for (Column c : schema.getColumns()) {
                if (!c.isPhysical()) {
                    continue;
                }
                LanceField f = at.schema().fieldByName(c.getName()).orElseThrow(() -> new ValidationException(
                        "Column '" + c.getName() + "' of table " + context.getObjectIdentifier() + " does not exist in "
                                + "version " + at.version() + " of the Lance table at " + uri + "; its columns are "
                                + at.schema().fields().stream().map(LanceField::name).toList()));
                LanceTypeMapping.checkReadable(c.getName(), c.getDataType().getLogicalType(), f.toArrow());
                physical.add(c.getName());
            }
            return new LanceDynamicTableSource(new LanceTableConfig(uri, storage, at.version(), batchSize,
                    rowsPerSplit), physical);
        } catch (LanceTypeException e) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new ValidationException("Cannot open the Lance table at '" + uri + "' for table "
                    + context.getObjectIdentifier() + ": " + e.getMessage(), e);
        }
    }

    /** The {@code storage.*} options with the prefix removed. */
    static Map<String, String> storageOptions(Map<String, String> tableOptions) {
        Map<String, String> out = new HashMap<>();
        tableOptions.forEach((k, v) -> {
            if (k.startsWith(LanceConnectorOptions.STORAGE_PREFIX)) {
                out.put(k.substring(LanceConnectorOptions.STORAGE_PREFIX.length()), v);
            }
        });
        return out;
    }

    static Instant instant(String text) {
        String t = text.trim();
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
            return Instant.ofEpochMilli(Long.parseLong(t));
        }
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException e) {
            throw new ValidationException("'as-of' = '" + text + "' is not an instant: write ISO-8601 with an offset, "
                    + "e.g. '2026-11-29T21:00:00Z', or epoch milliseconds", e);
        }
    }
}
