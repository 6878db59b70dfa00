package dev.lanceflink.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.it.docs.DocSnippets.Kind;
import dev.lanceflink.it.docs.DocSnippets.Snippet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every snippet of the documentation has a test or a reason not to ({@link DocSnippets}): a new
 * block without either fails here, before anything runs. Also checks the cheap kinds: markers
 * point at real tests that contain the snippet, Maven coordinates name modules of this build,
 * synopses name only commands and options the CLI has.
 */
class DocSnippetsInventoryTest {

    private static final Pattern OPTION = Pattern.compile("(?:^|[\\s\\[|])(--?[a-zA-Z][\\w-]*)");

    @Test
    void everySnippetIsRunOrMarkedWithAReason() {
        List<Snippet> all = DocSnippets.all();
        assertThat(all.stream().filter(s -> s.kind() == Kind.UNMARKED).map(Snippet::toString))
                .as("snippets without a test: make them runnable (sql, bash with bin/lance-flink, java, xml) or mark"
                        + " them <!-- doc-test: skip (reason) --> / run by <test file> / synopsis / output"
                        + " (see DocSnippets)")
                .isEmpty();
        assertThat(all.stream()
                        .filter(s -> s.kind() == Kind.SKIP && s.skipReason().isEmpty())
                        .map(Snippet::toString))
                .as("skip markers without a reason: <!-- doc-test: skip (why) -->")
                .isEmpty();
        Map<String, Long> counts = new TreeMap<>(
                all.stream().collect(Collectors.groupingBy(s -> s.kind().name(), Collectors.counting())));
        System.out.println("doc snippets: " + all.size() + " " + counts);
        all.stream()
                .filter(s -> s.kind() == Kind.SKIP)
                .forEach(s -> System.out.println("  skipped " + s.where() + ": " + s.skipReason()));
        assertThat(all)
                .as("the README's SQL blocks run")
                .anyMatch(s -> s.file().equals(Path.of("README.md")) && s.isSql() && s.kind() == Kind.RUN);
    }

    @Test
    void outputBlocksFollowARunnableBlock() {
        List<Snippet> all = DocSnippets.all();
        for (int i = 0; i < all.size(); i++) {
            Snippet s = all.get(i);
            if (s.kind() == Kind.OUTPUT) {
                Snippet before = i > 0 ? all.get(i - 1) : null;
                assertThat(before != null && before.file().equals(s.file()) && before.kind() == Kind.RUN)
                        .as(s.where() + ": an output block must directly follow the block it is the output of")
                        .isTrue();
            }
        }
    }

    @Test
    void shellSnippetsAreLanceFlinkCommands() {
        for (Snippet s : DocSnippets.all()) {
            if (s.kind() == Kind.RUN && !s.isSql() && !s.isScriptFile()) {
                for (String line : DocRunner.commandLines(s.text())) {
                    assertThat(DocRunner.shellWords(line))
                            .as(s.where() + ": only bin/lance-flink commands and the"
                                    + " examples' java commands run; mark the block otherwise: " + line)
                            .isNotEmpty()
                            .first()
                            .isIn("bin/lance-flink", "java");
                }
            }
        }
    }

    /** A "run by" test exists and holds the snippet: each SQL statement, or each script the block runs. */
    @Test
    void runByMarkersNameATestThatHoldsTheSnippet() throws Exception {
        for (Snippet s : DocSnippets.all()) {
            if (s.kind() != Kind.RUN_BY) {
                continue;
            }
            Path test = DocSnippets.ROOT.resolve(s.runBy());
            assertThat(test).as(s.where() + ": the test named by its marker").isRegularFile();
            String source = normalize(Files.readString(test));
            List<String> needed = new ArrayList<>();
            if (s.isScriptFile()) {
                needed.add(s.file().getFileName().toString());
            } else if (s.isSql()) {
                for (String statement : s.text().split(";")) {
                    String sql = statement
                            .lines()
                            .filter(l -> !l.strip().startsWith("--"))
                            .collect(Collectors.joining(" "));
                    if (!sql.isBlank()) {
                        needed.add(normalize(sql) + ";");
                    }
                }
            } else if (s.language().equals("yaml")) {
                // Flink configuration: the test sets every key shown to the value shown.
                s.text()
                        .lines()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .forEach(l -> {
                            int colon = l.indexOf(':');
                            needed.add(normalize("\"" + l.substring(0, colon).strip() + "\", \""
                                    + l.substring(colon + 1).strip() + "\""));
                        });
            } else {
                Matcher m = Pattern.compile("[\\w./-]+\\.(?:py|sh|sql)\\b").matcher(s.text());
                while (m.find()) {
                    needed.add(Path.of(m.group()).getFileName().toString());
                }
            }
            assertThat(needed)
                    .as(s.where() + ": nothing to look for in " + s.runBy())
                    .isNotEmpty();
            for (String n : needed) {
                assertThat(source)
                        .as(s.where() + ": " + s.runBy() + " runs the snippet")
                        .contains(n);
            }
        }
    }

    @Test
    void mavenCoordinatesNameModulesOfThisBuild() throws Exception {
        String rootPom = Files.readString(DocSnippets.ROOT.resolve("pom.xml"));
        String version = tag(rootPom.substring(rootPom.indexOf("</parent>") + 1), "version");
        List<String> artifacts = new ArrayList<>();
        for (String module : Pattern.compile("<module>([^<]+)</module>")
                .matcher(rootPom)
                .results()
                .map(r -> r.group(1))
                .toList()) {
            String pom = Files.readString(DocSnippets.ROOT.resolve(module).resolve("pom.xml"));
            artifacts.add(tag(pom.substring(pom.indexOf("</parent>")), "artifactId"));
        }
        for (Snippet s : DocSnippets.all()) {
            if (s.kind() == Kind.DEPENDENCY) {
                assertThat(tag(s.text(), "groupId")).as(s.where()).isEqualTo(tag(rootPom, "groupId"));
                assertThat(artifacts).as(s.where() + ": artifactId").contains(tag(s.text(), "artifactId"));
                assertThat(tag(s.text(), "version")).as(s.where() + ": version").isEqualTo(version);
            }
        }
    }

    /** Each command and option of a synopsis is in the CLI's help. */
    @Test
    void synopsesNameOnlyCommandsAndOptionsTheCliHas() {
        for (Snippet s : DocSnippets.all()) {
            if (s.kind() != Kind.SYNOPSIS) {
                continue;
            }
            for (String line : DocRunner.commandLines(s.text())) {
                String code = line.replaceAll("\\s#.*$", "");
                List<String> words = List.of(code.split("\\s+"));
                assertThat(words.get(0)).as(s.where()).isEqualTo("bin/lance-flink");
                String command = words.get(1);
                DocRunner.Run help = DocRunner.cli(List.of(command, "--help"));
                assertThat(help.exitCode())
                        .as(s.where() + ": " + help.describe())
                        .isZero();
                Matcher m = OPTION.matcher(code);
                while (m.find()) {
                    assertThat(help.stdout())
                            .as(s.where() + ": bin/lance-flink " + command + " --help")
                            .containsPattern("(?m)(^|[\\s,\\[])" + Pattern.quote(m.group(1)) + "([\\s=,\\]]|$)");
                }
            }
        }
    }

    private static String tag(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">([^<]+)</" + name + ">").matcher(xml);
        assertThat(m.find()).as("<" + name + "> in " + xml).isTrue();
        return m.group(1).strip();
    }

    private static String normalize(String text) {
        return text.replaceAll("\\s+", " ")
                .replace("( ", "(")
                .replace(" )", ")")
                .strip();
    }
}
