package dev.lanceflink.schema;

import java.util.ArrayList;
import java.util.List;

/**
 * Dotted field paths as Lance spells them: {@code a.b.c}; a component that contains anything
 * other than letters, digits and {@code _} is quoted with backticks, and a backtick inside a
 * quoted component is doubled ({@code `my.col`.x}, {@code `a``b`}).
 */
public final class FieldPaths {

    private FieldPaths() {}

    /**
     * Splits a dotted path into its components.
     *
     * @throws LanceSchemaException if the path is empty or its quoting is malformed
     */
    public static List<String> parse(String path) {
        if (path.isEmpty()) {
            throw new LanceSchemaException("Field path is empty; name a column such as 'a' or 'a.b'");
        }
        List<String> components = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (quoted) {
                if (c == '`') {
                    if (i + 1 < path.length() && path.charAt(i + 1) == '`') {
                        current.append('`');
                        i++;
                    } else {
                        quoted = false;
                        if (i + 1 < path.length() && path.charAt(i + 1) != '.') {
                            throw new LanceSchemaException("Invalid field path '" + path
                                    + "': expected '.' or the end after the closing backtick at position " + i);
                        }
                    }
                } else {
                    current.append(c);
                }
            } else if (c == '`') {
                if (current.length() > 0) {
                    throw new LanceSchemaException("Invalid field path '" + path
                            + "': backtick in the middle of a name at position " + i
                            + "; quote the whole component instead");
                }
                quoted = true;
                wasQuoted = true;
            } else if (c == '.') {
                if (current.length() == 0 && !wasQuoted) {
                    throw new LanceSchemaException(
                            "Invalid field path '" + path + "': empty component at position " + i);
                }
                components.add(current.toString());
                current.setLength(0);
                wasQuoted = false;
            } else {
                current.append(c);
            }
        }
        if (quoted) {
            throw new LanceSchemaException("Invalid field path '" + path + "': unclosed backtick");
        }
        if (current.length() == 0 && !wasQuoted) {
            throw new LanceSchemaException("Invalid field path '" + path + "': it ends with an empty component");
        }
        components.add(current.toString());
        return components;
    }

    /** Joins components into a dotted path, quoting those that need it. */
    public static String format(List<String> components) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < components.size(); i++) {
            if (i > 0) {
                out.append('.');
            }
            String c = components.get(i);
            if (needsQuoting(c)) {
                out.append('`').append(c.replace("`", "``")).append('`');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean needsQuoting(String component) {
        if (component.isEmpty()) {
            return true;
        }
        for (int i = 0; i < component.length(); i++) {
            char c = component.charAt(i);
            if (!Character.isLetterOrDigit(c) && c != '_') {
                return true;
            }
        }
        return false;
    }
}
