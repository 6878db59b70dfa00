package dev.lanceflink.flink.docs;

import dev.lanceflink.flink.catalog.LanceCatalogFactory;
import dev.lanceflink.flink.catalog.LanceCatalogOptions;
import dev.lanceflink.flink.table.LanceConnectorOptions;
import dev.lanceflink.flink.table.LanceDynamicTableFactory;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.HtmlFormatter;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.util.TimeUtils;

/**
 * Writes {@code docs/options.md} from the {@link ConfigOption}s the table and catalog factories
 * declare, so the reference cannot drift from what Flink validates: an option added to a
 * factory's required or optional set appears here, with its type, default and description.
 * {@link OptionsReferenceTest} fails when the file differs from what this renders.
 *
 * <p>Run {@link #main} with the repository root as working directory, or the test with
 * {@code -Dlance.docs.regenerate=true}.
 */
public final class OptionsReference {
    /** The reference's location, relative to the repository root. */
    public static final String FILE = "docs/options.md";
    /** How to rewrite the file; the test's failure message quotes it. */
    public static final String REGENERATE = "mvn -B -ntp -o -q -pl flink-connector -am test -Dtest=OptionsReferenceTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dlance.docs.regenerate=true";

    private OptionsReference() {}

    public static void main(String[] args) throws IOException {
        Path target = Path.of(args.length > 0 ? args[0] : FILE);
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.writeString(target, render(), StandardCharsets.UTF_8);
    }

    /** Every option of a factory, in key order. */
    public static List<ConfigOption<?>> options(Factory factory) {
        List<ConfigOption<?>> all = new ArrayList<>(factory.requiredOptions());
        all.addAll(factory.optionalOptions());
        all.sort(Comparator.comparing(ConfigOption::key));
        return all;
    }

    /** The whole Markdown document. */
    public static String render() {
        LanceDynamicTableFactory tables = new LanceDynamicTableFactory();
        LanceCatalogFactory catalogs = new LanceCatalogFactory();
        List<ConfigOption<?>> tableOptions = options(tables);
        StringBuilder out = new StringBuilder();
        out.append("# Options reference\n\n")
                .append(
                        "<!-- Generated from the ConfigOptions of LanceDynamicTableFactory and LanceCatalogFactory by\n")
                .append(
                        "     flink-connector/src/test/java/dev/lanceflink/flink/docs/OptionsReference.java; do not edit.\n")
                .append("     Regenerate: ")
                .append(REGENERATE)
                .append(" -->\n\n")
                .append("Durations take a unit (`200 ms`, `5 s`, `1 min`); a Map is written `'k1:v1,k2:v2'`.\n\n");

        out.append("## Table options (`'connector' = 'lance'`)\n\n")
                .append(
                        "Used by `CREATE TABLE ... WITH (...)`, and set by the Lance catalog on the tables it lists.\n\n");
        table(
                out,
                tableOptions.stream().filter(o -> !o.key().startsWith("sink.")).collect(Collectors.toList()),
                tables.requiredOptions());
        out.append("| `")
                .append(LanceConnectorOptions.STORAGE_PREFIX)
                .append("*` | no | String | (none) | ")
                .append("Object-store options passed to the store without the prefix, with Lance's key names: ")
                .append(
                        "`'storage.aws_region' = 'eu-west-1'` is the storage option `aws_region` (also `aws_endpoint`, ")
                .append("`aws_access_key_id`, `aws_secret_access_key`, `allow_http`, ")
                .append("`aws_virtual_hosted_style_request`). |\n\n");

        out.append("## Write options (`sink.*`, table options read by INSERT, UPDATE and DELETE)\n\n");
        table(
                out,
                tableOptions.stream().filter(o -> o.key().startsWith("sink.")).collect(Collectors.toList()),
                tables.requiredOptions());
        out.append('\n');

        out.append("## Catalog options (`CREATE CATALOG ... WITH ('type' = 'lance', ...)`)\n\n");
        table(out, options(catalogs), catalogs.requiredOptions());
        out.append("| `")
                .append(LanceCatalogOptions.STORAGE_PREFIX)
                .append("*` | no | String | (none) | ")
                .append("Object-store options for the warehouse, passed on to every table of the catalog ")
                .append("(see the table option of the same name). |\n");
        return out.toString();
    }

    private static void table(StringBuilder out, List<ConfigOption<?>> options, Set<ConfigOption<?>> required) {
        out.append("| Key | Required | Type | Default | Description |\n|---|---|---|---|---|\n");
        for (ConfigOption<?> o : options) {
            out.append("| `")
                    .append(o.key())
                    .append("` | ")
                    .append(required.contains(o) ? "yes" : "no")
                    .append(" | ")
                    .append(type(o))
                    .append(" | ")
                    .append(defaultValue(o))
                    .append(" | ")
                    .append(cell(description(o)))
                    .append(" |\n");
        }
    }

    /**
     * The description's text as Flink renders it for its own docs (HTML escapes, which Markdown
     * shows as the characters; line breaks become spaces to keep one table row).
     */
    public static String description(ConfigOption<?> option) {
        return new HtmlFormatter()
                .format(option.description())
                .replace("<br />", " ")
                .trim();
    }

    static String defaultValue(ConfigOption<?> o) {
        if (!o.hasDefaultValue()) {
            return "(none)";
        }
        Object v = o.defaultValue();
        if (v instanceof Duration d) {
            return "`" + TimeUtils.formatWithHighestUnit(d) + "`";
        }
        if (v instanceof Map<?, ?> m) {
            return "`"
                    + m.entrySet().stream()
                            .map(e -> e.getKey() + ":" + e.getValue())
                            .collect(Collectors.joining(",")) + "`";
        }
        return "`" + v + "`";
    }

    /** The option's value type; {@code ConfigOption} keeps it package-private, Flink's docs generator reads it alike. */
    static String type(ConfigOption<?> o) {
        try {
            Method clazz = ConfigOption.class.getDeclaredMethod("getClazz");
            clazz.setAccessible(true);
            Method isList = ConfigOption.class.getDeclaredMethod("isList");
            isList.setAccessible(true);
            String name = ((Class<?>) clazz.invoke(o)).getSimpleName();
            return (Boolean) isList.invoke(o) ? "List<" + name + ">" : name;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot read the type of option " + o.key(), e);
        }
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
