package dev.lanceflink.it.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one run of Flink's command-line frontend ({@code bin/flink ...}) returned.
 *
 * @param exitCode the process exit code
 * @param stdout what it printed on stdout: the frontend's own messages and the output of the
 *     submitted program's {@code main} (which runs inside the frontend)
 * @param stderr what it printed on stderr
 */
public record CliResult(int exitCode, String stdout, String stderr) {

    /** The line {@code flink run} prints once the cluster accepted the job. */
    private static final Pattern SUBMITTED = Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");

    /** Terminal colour codes, which the SQL client prints even into a file. */
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

    /** The id of the job this run submitted, if its output says one was submitted. */
    public Optional<String> submittedJobId() {
        Matcher m = SUBMITTED.matcher(stdout);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * The statements the SQL client reported as failed: each {@code [ERROR]} block of its stdout
     * (ANSI colours removed). The SQL client exits with 0 even then.
     */
    public List<String> sqlErrors() {
        String plain = ANSI.matcher(stdout).replaceAll("");
        List<String> errors = new ArrayList<>();
        int at = plain.indexOf("[ERROR]");
        while (at >= 0) {
            int next = plain.indexOf("[ERROR]", at + 1);
            int end = next < 0 ? plain.length() : next;
            for (String after : List.of("Flink SQL>", "Shutting down the session")) {
                int i = plain.indexOf(after, at);
                if (i >= 0 && i < end) {
                    end = i;
                }
            }
            errors.add(plain.substring(at, end).strip());
            at = next;
        }
        return errors;
    }

    /** Everything the run printed, for assertion messages. */
    public String describe() {
        return "exit code " + exitCode + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
}
