package dev.lanceflink.flink.catalog;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * {@code 'type' = 'lance'}: creates a {@link LanceCatalog}.
 *
 * <pre>
 * CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = 's3://bucket/lake',
 *                           'default-database' = 'default', 'storage.aws_region' = 'eu-west-1');
 * </pre>
 */
public final class LanceCatalogFactory implements CatalogFactory {
    public static final String IDENTIFIER = "lance";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(LanceCatalogOptions.WAREHOUSE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(LanceCatalogOptions.DEFAULT_DATABASE);
    }

    @Override
    public Catalog createCatalog(Context context) {
        FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
        helper.validateExcept(LanceCatalogOptions.STORAGE_PREFIX);
        return new LanceCatalog(
                context.getName(),
                helper.getOptions().get(LanceCatalogOptions.DEFAULT_DATABASE),
                helper.getOptions().get(LanceCatalogOptions.WAREHOUSE),
                storageOptions(context.getOptions()));
    }

    /** The {@code storage.*} options with the prefix removed. */
    static Map<String, String> storageOptions(Map<String, String> catalogOptions) {
        Map<String, String> out = new HashMap<>();
        catalogOptions.forEach((k, v) -> {
            if (k.startsWith(LanceCatalogOptions.STORAGE_PREFIX)) {
                out.put(k.substring(LanceCatalogOptions.STORAGE_PREFIX.length()), v);
            }
        });
        return out;
    }
}
