package dev.lanceflink.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compaction command line beyond CompactorMainTest: repeated options, literal '@', the help. */
class CompactCommandLineTest {

    @Test
    void aRepeatedOptionWinsAsBefore() {
        CompactorOptions o = CompactorOptions.parse(new String[] {
            "t",
            "--mode",
            "cleanup",
            "--mode",
            "overlay-fold",
            "--max-fragments",
            "1",
            "--max-fragments",
            "2",
            "--storage-option",
            "a=1",
            "--storage-option",
            "b=2"
        });
        assertThat(o.modeName()).isEqualTo("overlay-fold");
        assertThat(o.policy().maxFragments()).isEqualTo(2);
        assertThat(o.storageOptions()).containsOnlyKeys("a", "b");
    }

    @Test
    void argumentsStartingWithAtAreTakenLiterally(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("args"), "--mode cleanup");
        CompactorOptions o = CompactorOptions.parse(new String[] {"compact", "@" + file, "--mode", "overlay-merge"});
        assertThat(o.tableUri()).isEqualTo("@" + file);
        assertThat(o.modeName()).isEqualTo("overlay-merge");
    }

    @Test
    void helpIsGeneratedPlainTextListingEveryOption() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = CompactorMain.run(
                new String[] {"compact", "/t", "--mode", "bogus", "-h"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream()));
        assertThat(code).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        assertThat(help).startsWith("lance-flink compact <table-uri> --mode").doesNotContain("\u001B[");
        CompactCommandLine.commandLine()
                .getCommandSpec()
                .options()
                .forEach(o -> assertThat(help).contains(o.longestName()));
        assertThat(help).contains("overlay-merge", "overlay-fold", "fragments", "cleanup", "Exit code");
    }
}
