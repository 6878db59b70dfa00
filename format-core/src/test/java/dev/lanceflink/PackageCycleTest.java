package dev.lanceflink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * format-core's packages form layers: no package reaches itself through imports. A cycle (as
 * {@code read} and {@code overlay} once had) means neither side can be understood or changed
 * alone; this reads the main sources' imports and names every cycle it finds.
 */
class PackageCycleTest {
    private static final Pattern IMPORT =
            Pattern.compile("^import (?:static )?dev\\.lanceflink\\.([a-z0-9.]+)\\.[A-Z]", Pattern.MULTILINE);

    @Test
    void noPackageImportsItselfThroughOthers() throws IOException {
        Map<String, Set<String>> deps = packageImports(Path.of("src/main/java/dev/lanceflink"));
        assertThat(deps).as("packages found (run from the module directory)").containsKeys("read", "overlay", "txn");
        List<String> cycles = new ArrayList<>();
        for (String pkg : deps.keySet()) {
            List<String> path = pathBack(deps, pkg);
            if (path != null) {
                cycles.add(String.join(" -> ", path));
            }
        }
        assertThat(cycles)
                .as("package cycles in format-core (move the class that closes the loop to a layer above" + " both)")
                .isEmpty();
    }

    /** Package (relative to dev.lanceflink) to the packages its main sources import. */
    private static Map<String, Set<String>> packageImports(Path root) throws IOException {
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String pkg = root.relativize(f.getParent()).toString().replace('/', '.');
                Set<String> out = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        out.add(m.group(1));
                    }
                }
            }
        }
        return deps;
    }

    /** A path of imports from {@code start} back to itself, or null: breadth first, shortest. */
    private static List<String> pathBack(Map<String, Set<String>> deps, String start) {
        Map<String, String> parent = new TreeMap<>();
        Deque<String> queue = new ArrayDeque<>(deps.getOrDefault(start, Set.of()));
        deps.getOrDefault(start, Set.of()).forEach(d -> parent.put(d, start));
        while (!queue.isEmpty()) {
            String p = queue.poll();
            if (p.equals(start)) {
                List<String> path = new ArrayList<>();
                String at = parent.get(start);
                path.add(start);
                while (!at.equals(start)) {
                    path.add(0, at);
                    at = parent.get(at);
                }
                path.add(0, start);
                return path;
            }
            for (String next : deps.getOrDefault(p, Set.of())) {
                if (!parent.containsKey(next)) {
                    parent.put(next, p);
                    queue.add(next);
                }
            }
        }
        return null;
    }
}
