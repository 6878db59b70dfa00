package dev.lanceflink.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * {@code bin/lance-flink sql} at a terminal, with neither {@code -f} nor {@code -e}: a prompt with
 * line editing and history (JLine), that runs each statement as soon as the {@code ;} ending it
 * is typed. A statement may span lines (the prompt changes to {@code ->} until it is complete);
 * the semicolon rules are the script splitter's ({@link SqlScriptSplitter}). A failing statement
 * prints its error and the prompt goes on. Ctrl-C at the prompt drops the unfinished statement,
 * Ctrl-D (or {@code quit;} / {@code exit;}) ends the session; Ctrl-C while a statement runs ends
 * the program (a running INSERT prints its commit summary first).
 *
 * <p>History is kept in {@code ~/.lance-flink_history}.
 */
final class SqlPrompt {
    static final String PROMPT = "lance-flink> ";
    static final String CONTINUATION = "          -> ";
    /** The exit code of a program a Ctrl-C (SIGINT) ends, as shells report it. */
    static final int EXIT_INTERRUPTED = 130;

    private SqlPrompt() {}

    /** The prompt on the process's terminal. */
    static int runOnSystemTerminal(SqlCommand command, PrintStream err) {
        // While a statement runs, Ctrl-C ends the program through System.exit, so that shutdown
        // hooks run (a running INSERT prints its commit summary). JLine's default handler is the
        // operating system's default action, which kills the JVM without running them. At the
        // prompt, the line reader handles Ctrl-C itself (it drops the unfinished statement).
        Terminal.SignalHandler interrupt = signal -> {
            if (signal == Terminal.Signal.INT) {
                System.exit(EXIT_INTERRUPTED);
            }
        };
        try (Terminal terminal =
                TerminalBuilder.builder().system(true).signalHandler(interrupt).build()) {
            Path history = Paths.get(System.getProperty("user.home"), ".lance-flink_history");
            return run(terminal, history, command);
        } catch (IOException e) {
            err.println("lance-flink sql: cannot open the terminal: " + LanceFlinkCli.message(e));
            return LanceFlinkCli.EXIT_FAILED;
        }
    }

    /** Reads and runs statements from {@code terminal} until end of input; returns the exit code. */
    static int run(Terminal terminal, Path historyFile, SqlCommand command) {
        LineReader reader = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("lance-flink")
                .variable(LineReader.HISTORY_FILE, historyFile)
                // '!' and '^' are SQL, not history events.
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                .build();
        terminal.writer().println("lance-flink sql: statements end with ';' (Ctrl-D or 'quit;' ends)");
        terminal.flush();
        StringBuilder pending = new StringBuilder();
        int index = 0;
        while (true) {
            String line;
            try {
                line = reader.readLine(pending.isEmpty() ? PROMPT : CONTINUATION);
            } catch (UserInterruptException e) {
                pending.setLength(0);
                continue;
            } catch (EndOfFileException e) {
                break;
            }
            pending.append(line).append('\n');
            SqlScriptSplitter.Terminated done = SqlScriptSplitter.terminated(pending.toString());
            String rest = pending.substring(done.restStart());
            pending.setLength(0);
            // Only blanks after the last ';' start the next statement afresh (the continuation
            // prompt would otherwise stay for a statement that does not exist).
            if (!rest.isBlank()) {
                pending.append(rest);
            }
            for (SqlScriptSplitter.Statement s : done.statements()) {
                String word = s.sql().strip().toLowerCase(Locale.ROOT);
                if (word.equals("quit") || word.equals("exit")) {
                    return LanceFlinkCli.EXIT_OK;
                }
                index++;
                command.run(s.sql(), "statement " + index);
            }
        }
        return LanceFlinkCli.EXIT_OK;
    }
}
