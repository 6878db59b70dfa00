/**
 * Stable row ids: the {@code RowIdSequence} and {@code RowDatasetVersionSequence} codecs and the
 * assignment of fresh ids to appended fragments.
 */
package dev.lanceflink.rowid;
