/**
 * The Lance schema model: {@link dev.lanceflink.schema.LanceSchema} (a tree of
 * {@link dev.lanceflink.schema.LanceField}s with stable field ids), its lossless conversion to and
 * from the flattened {@code lance.file.Field} list stored in manifests, transactions and data
 * files, and the mapping between Lance {@code logical_type} strings and Arrow Java types
 * ({@link dev.lanceflink.schema.LogicalTypes}).
 *
 * <p>Field ids, not names, identify columns everywhere in a Lance table (data files, overlays,
 * indices), so this package never renumbers an existing field: ids are only assigned to fields
 * that have none, in pre-order, from a caller-supplied starting point.
 */
package dev.lanceflink.schema;
