package dev.lanceflink.dataset;

/** How {@link Dataset#write} treats an existing table. */
public enum WriteMode {
    /** Create a new table; fail if one exists. */
    CREATE,
    /** Add rows to an existing table (create it if missing). */
    APPEND,
    /** Replace all rows and the schema (create the table if missing). */
    OVERWRITE
}
