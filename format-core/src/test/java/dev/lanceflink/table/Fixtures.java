package dev.lanceflink.table;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/** Locates the Lance 7.0.0 fixture datasets on the test classpath. */
final class Fixtures {
    static final String[] NAMES = {
        "v20_all", "v20_default_table", "v21_const", "v21_default_table", "v21_fullzip", "v21_huge", "v21_ints",
        "v21_nested", "v21_options", "v21_strings", "v22_const", "v22_default_table", "v22_fullzip", "v22_huge",
        "v22_ints", "v22_nested", "v22_options", "v22_strings"
    };

    private Fixtures() {}

    static Path dataset(String name) {
        URL url = Fixtures.class.getResource("/fixtures/lance-7.0.0/" + name + ".lance");
        if (url == null) {
            throw new IllegalStateException("fixture " + name + " is not on the test classpath");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
