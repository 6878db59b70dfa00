package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CliResultTest {

    @Test
    void findsTheSubmittedJobId() {
        CliResult run = new CliResult(
                0,
                "Job has been submitted with JobID 0123456789abcdef0123456789abcdef\n" + "Program execution finished\n",
                "");
        assertThat(run.submittedJobId()).contains("0123456789abcdef0123456789abcdef");
        assertThat(new CliResult(0, "No running jobs.\n", "").submittedJobId()).isEmpty();
    }

    @Test
    void sqlErrorsAreTheErrorBlocksWithoutColours() {
        String stdout = "\u001B[34;1m[INFO] Executing SQL from file.\u001B[0m\n"
                + "Flink SQL> \u001B[31;1m[ERROR] Could not execute SQL statement. Reason:\n"
                + "org.apache.flink.table.api.ValidationException: Object 'x' not found\u001B[0m\n\n"
                + "Flink SQL> \u001B[31;1m[ERROR] Second.\u001B[0m\n"
                + "Shutting down the session...\n";
        CliResult run = new CliResult(0, stdout, "");
        assertThat(run.sqlErrors())
                .containsExactly(
                        "[ERROR] Could not execute SQL statement. Reason:\n"
                                + "org.apache.flink.table.api.ValidationException: Object 'x' not found",
                        "[ERROR] Second.");
        assertThat(new CliResult(0, "\u001B[34;1m[INFO] Execute statement succeeded.\u001B[0m\n", "").sqlErrors())
                .isEmpty();
    }
}
