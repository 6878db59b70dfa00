package dev.lanceflink.flink.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lanceflink.flink.catalog.LanceCatalogFactory;
import dev.lanceflink.flink.table.LanceDynamicTableFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/options.md} is what {@link OptionsReference} renders from the factories' options, and
 * every option explains itself. With {@code -Dlance.docs.regenerate=true} it rewrites the file
 * instead of comparing.
 */
class OptionsReferenceTest {
    /** The repository root: surefire runs in the module directory and names it in {@code basedir}. */
    private static final Path FILE = Path.of(System.getProperty("basedir", "."))
            .resolve("..")
            .resolve(OptionsReference.FILE)
            .normalize();

    @Test
    void everyOptionHasADescription() {
        List<String> missing = new ArrayList<>();
        for (ConfigOption<?> o : all()) {
            if (OptionsReference.description(o).isEmpty()) {
                missing.add(o.key());
            }
        }
        assertThat(missing)
                .as("options without a description (add .withDescription(...))")
                .isEmpty();
    }

    @Test
    void docsOptionsMdIsUpToDate() throws Exception {
        String expected = OptionsReference.render();
        if (Boolean.getBoolean("lance.docs.regenerate")) {
            Files.createDirectories(FILE.getParent());
            Files.writeString(FILE, expected, StandardCharsets.UTF_8);
        }
        String actual = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";
        if (!actual.equals(expected)) {
            List<String> stale = new ArrayList<>();
            for (String line : expected.lines().toList()) {
                if (line.startsWith("| `") && !actual.contains(line)) {
                    stale.add(line.substring(2, line.indexOf('`', 3) + 1));
                }
            }
            fail(OptionsReference.FILE + " is out of date with the code's ConfigOptions (missing or changed: " + stale
                    + "); regenerate it with: " + OptionsReference.REGENERATE);
        }
    }

    private static List<ConfigOption<?>> all() {
        List<ConfigOption<?>> all = new ArrayList<>(OptionsReference.options(new LanceDynamicTableFactory()));
        all.addAll(OptionsReference.options(new LanceCatalogFactory()));
        return all;
    }
}
