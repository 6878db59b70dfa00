/**
 * The Lance table format: the immutable model of one table version ({@link
 * dev.lanceflink.table.Manifest}, {@link dev.lanceflink.table.Fragment}, {@link
 * dev.lanceflink.table.DataFile}, deletion and overlay references), the manifest file layout
 * ({@link dev.lanceflink.table.ManifestIO}), manifest naming and version lookup ({@link
 * dev.lanceflink.table.VersionResolver}) and feature flags. Generated protobuf classes stay
 * behind {@link dev.lanceflink.table.TableProtoCodec}.
 */
package dev.lanceflink.table;
