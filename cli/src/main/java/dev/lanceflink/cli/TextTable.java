package dev.lanceflink.cli;

import java.util.List;

/** Renders rows as the boxed text table of Flink's SQL client ("tableau"), for {@code sql --format table}. */
final class TextTable {
    private TextTable() {}

    static String render(List<String> header, List<List<String>> rows) {
        int[] widths = new int[header.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = header.get(c).codePointCount(0, header.get(c).length());
            for (List<String> row : rows) {
                widths[c] = Math.max(
                        widths[c], row.get(c).codePointCount(0, row.get(c).length()));
            }
        }
        StringBuilder out = new StringBuilder();
        separator(out, widths);
        line(out, widths, header);
        separator(out, widths);
        for (List<String> row : rows) {
            line(out, widths, row);
        }
        if (!rows.isEmpty()) {
            separator(out, widths);
        }
        out.append(rows.size()).append(rows.size() == 1 ? " row" : " rows").append(" in set\n");
        return out.toString();
    }

    private static void separator(StringBuilder out, int[] widths) {
        out.append('+');
        for (int w : widths) {
            out.append("-".repeat(w + 2)).append('+');
        }
        out.append('\n');
    }

    private static void line(StringBuilder out, int[] widths, List<String> cells) {
        out.append('|');
        for (int c = 0; c < widths.length; c++) {
            String text = cells.get(c).replace('\n', ' ');
            out.append(' ')
                    .append(text)
                    .append(" ".repeat(widths[c] - text.codePointCount(0, text.length()) + 1))
                    .append('|');
        }
        out.append('\n');
    }
}
