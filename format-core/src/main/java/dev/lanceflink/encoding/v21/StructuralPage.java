package dev.lanceflink.encoding.v21;

import java.io.IOException;

/** One decoded-on-demand page of a structural (2.1+) leaf column. */
public interface StructuralPage {
    /** Rows in the page. */
    long numRows();

    /**
     * Appends the level entries and value slots of page rows {@code [from, to)} (page-relative)
     * to {@code levels} and {@code values}; def levels are appended in canonical form.
     */
    void readRows(long from, long to, LeafLevels levels, Values values) throws IOException;
}
