package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.cli.SqlScriptSplitter.Statement;
import org.junit.jupiter.api.Test;

class SqlScriptSplitterTest {
    @Test
    void splitsAtSemicolonsOutsideLiteralsIdentifiersAndComments() {
        String script = "SET 'a' = 'x;y';\n"
                + "-- leading comment; not a statement\n"
                + "SELECT 'it''s; fine', `we;ird`, \"q;uoted\" FROM t /* block; comment */ WHERE x = 1;\n"
                + "\n"
                + "  INSERT INTO t VALUES (1)  ;;  ";
        assertThat(SqlScriptSplitter.split(script))
                .containsExactly(
                        new Statement("SET 'a' = 'x;y'", 1),
                        new Statement(
                                "-- leading comment; not a statement\n"
                                        + "SELECT 'it''s; fine', `we;ird`, \"q;uoted\" FROM t /* block; comment */ WHERE x = 1",
                                3),
                        new Statement("INSERT INTO t VALUES (1)", 5));
    }

    @Test
    void keepsAStatementSetBlockTogether() {
        String script = "EXECUTE STATEMENT SET\nBEGIN\n  INSERT INTO a SELECT 1;\n  INSERT INTO b SELECT 2;\nEND;\n"
                + "SELECT 3";
        assertThat(SqlScriptSplitter.split(script))
                .extracting(Statement::sql)
                .containsExactly(
                        "EXECUTE STATEMENT SET\nBEGIN\n  INSERT INTO a SELECT 1;\n  INSERT INTO b SELECT 2;\nEND",
                        "SELECT 3");
    }

    @Test
    void commentOnlyAndEmptyScriptsHaveNoStatements() {
        assertThat(SqlScriptSplitter.split("")).isEmpty();
        assertThat(SqlScriptSplitter.split("  -- nothing here;\n/* nor; here */ ;"))
                .isEmpty();
    }

    @Test
    void anUnterminatedLiteralRunsToTheEnd() {
        assertThat(SqlScriptSplitter.split("SELECT 'abc; def"))
                .extracting(Statement::sql)
                .containsExactly("SELECT 'abc; def");
    }

    @Test
    void aPromptRunsTheTerminatedStatementsAndKeepsTheRest() {
        SqlScriptSplitter.Terminated t = SqlScriptSplitter.terminated("SET 'a' = 'x;y'; SELECT 1\n-- not yet;\n");
        assertThat(t.statements()).extracting(Statement::sql).containsExactly("SET 'a' = 'x;y'");
        assertThat("SET 'a' = 'x;y'; SELECT 1\n-- not yet;\n".substring(t.restStart()))
                .isEqualTo(" SELECT 1\n-- not yet;\n");

        assertThat(SqlScriptSplitter.terminated("SELECT 'open; quote").statements())
                .isEmpty();
        assertThat(SqlScriptSplitter.terminated("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;")
                        .statements())
                .isEmpty();
        String block = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END;\n";
        SqlScriptSplitter.Terminated set = SqlScriptSplitter.terminated(block);
        assertThat(set.statements())
                .extracting(Statement::sql)
                .containsExactly("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END");
        assertThat(set.restStart()).isEqualTo(block.indexOf("END;") + 4);
    }
}
