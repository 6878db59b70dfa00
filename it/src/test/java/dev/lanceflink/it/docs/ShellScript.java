package dev.lanceflink.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.it.docs.DocSnippets.Snippet;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a shell script of examples/ (quickstart.sh) in-process, statement by statement, in a fresh
 * working directory: {@code java ... -jar <examples jar> args} calls the jar's main class (named
 * in examples/pom.xml) from the examples' classes on the test class path, {@code bin/lance-flink
 * ...} goes through {@link DocRunner#command}, and jobs run on the test's MiniCluster, instead of
 * starting a JVM each. It knows only the forms the scripts use (variables with
 * {@code ${1:-default}}, {@code here="$(cd ... && pwd)"} as the repository root, {@code set},
 * {@code echo}, an {@code if ... fi} guard for the built jar, which the classes replace); any
 * other line fails the test, so a new form in a script is taught here rather than left unrun.
 */
final class ShellScript {

    private static final Pattern ASSIGN = Pattern.compile("^(\\w+)=\"(.*)\"$");
    private static final Pattern DEFAULT_ARG = Pattern.compile("^\\$\\{1:-([^}]*)}$");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)}|\\$(\\w+)");

    private ShellScript() {}

    /** Runs the script; returns what its commands printed on stdout. */
    static String run(DocRunner runner, Snippet script) throws Exception {
        Map<String, String> vars = new HashMap<>();
        StringBuilder stdout = new StringBuilder();
        List<String> lines = DocRunner.commandLines(script.text());
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String where = script.where().replaceFirst(":1$", "") + ": " + line;
            Matcher assign = ASSIGN.matcher(line);
            if (line.startsWith("set ") || line.startsWith("echo ") || line.equals("echo")) {
                continue;
            }
            if (line.startsWith("if ")) { // the guard for a missing jar: the classes stand in for it
                while (!lines.get(i).equals("fi")) {
                    i++;
                }
                continue;
            }
            if (assign.matches()) {
                String value = assign.group(2);
                Matcher def = DEFAULT_ARG.matcher(value);
                if (assign.group(1).equals("here") && value.startsWith("$(")) {
                    vars.put("here", DocSnippets.ROOT.toString());
                } else if (def.matches()) {
                    vars.put(assign.group(1), def.group(1));
                } else {
                    vars.put(assign.group(1), expand(value, vars, where));
                }
                continue;
            }
            List<String> words = new ArrayList<>();
            for (String w : DocRunner.shellWords(line)) {
                words.add(expand(w, vars, where));
            }
            if (words.get(0).equals("java")) {
                stdout.append(javaCommand(runner, words, where));
            } else if (words.get(0).endsWith("/bin/lance-flink")) {
                DocRunner.Run r = runner.command(words.subList(1, words.size()));
                assertThat(r.exitCode()).as(where + "\n" + r.describe()).isZero();
                stdout.append(r.stdout());
            } else {
                throw new AssertionError(where + ": ShellScript does not know how to run this line; teach it");
            }
        }
        return stdout.toString();
    }

    /**
     * {@code java [jvm options] -jar examples/target/lance-flink-examples.jar args} (the jar's main
     * class, named in examples/pom.xml) or {@code java [jvm options] -cp <that jar> <main class>
     * args}: the class's main method, in-process, with what it prints on stdout returned. The JVM
     * options must include the {@code --add-opens} the examples need, as a reader would type it.
     */
    static String javaCommand(DocRunner runner, List<String> words, String where) throws Exception {
        assertThat(words)
                .as(where + ": examples need the JVM flag")
                .contains("--add-opens=java.base/java.nio=ALL-UNNAMED");
        int jar = words.indexOf("-jar");
        int cp = words.indexOf("-cp");
        String mainClass;
        int firstArg;
        if (jar > 0) {
            String pom = DocSnippets.read(Path.of("examples/pom.xml"));
            Matcher main = Pattern.compile("<mainClass>([^<]+)</mainClass>").matcher(pom);
            assertThat(main.find())
                    .as("the examples jar's main class in examples/pom.xml")
                    .isTrue();
            mainClass = main.group(1);
            firstArg = jar + 2;
        } else {
            assertThat(cp)
                    .as(where + ": only java -jar <examples jar> or java -cp <examples jar> <class> runs")
                    .isPositive();
            jar = cp;
            mainClass = words.get(cp + 2);
            firstArg = cp + 3;
        }
        assertThat(words.get(jar + 1)).as(where).endsWith("examples/target/lance-flink-examples.jar");
        // Paths go to the test's working directory; counts and other plain words stay as written.
        String[] args = words.subList(firstArg, words.size()).stream()
                .map(a -> a.contains("/") || a.contains(".") ? runner.resolve(a) : a)
                .toArray(String[]::new);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream previous = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Class.forName(mainClass).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(
                    where + ": " + mainClass + " is not on the class path: the it module's"
                            + " surefire adds the examples module's classes, so build with -am (mvn -pl it -am test)",
                    e);
        } catch (InvocationTargetException e) {
            throw new AssertionError(where + " failed: " + e.getCause(), e.getCause());
        } finally {
            System.setOut(previous);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String expand(String word, Map<String, String> vars, String where) {
        Matcher m = VARIABLE.matcher(word);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            assertThat(vars).as(where + ": $" + name + " is not set").containsKey(name);
            m.appendReplacement(out, Matcher.quoteReplacement(vars.get(name)));
        }
        m.appendTail(out);
        return out.toString();
    }
}
