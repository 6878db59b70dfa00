/**
 * Decoding of the structural encodings of Lance file versions 2.1 and 2.2 (file-format.md §8,
 * compression.md).
 *
 * <p>Pipeline for one read of one top-level field:
 * <ol>
 *   <li>{@link dev.lanceflink.encoding.v21.StructuralFieldReader} finds the field's leaf columns
 *       (leaves, primitive fixed-size lists, packed structs) and asks each
 *       {@link dev.lanceflink.encoding.v21.StructuralColumnReader} for the rows;</li>
 *   <li>the column reader routes row ranges to pages ({@link dev.lanceflink.encoding.v21.MiniBlockPage},
 *       {@link dev.lanceflink.encoding.v21.FullZipPage}, {@link dev.lanceflink.encoding.v21.ConstantPage}),
 *       which fetch and decode only the chunks or byte ranges holding them and append rep/def
 *       levels ({@link dev.lanceflink.encoding.v21.LeafLevels}, def codes made page-independent by
 *       {@link dev.lanceflink.encoding.v21.RepDefLayers}) and value slots
 *       ({@link dev.lanceflink.encoding.v21.Values});</li>
 *   <li>{@link dev.lanceflink.encoding.v21.NestedStructure} turns each leaf's levels into the
 *       validity and offsets of every struct/list node on its path (compression.md §7);</li>
 *   <li>the Arrow vector tree is filled top-down, each node from its first leaf, buffer by buffer.</li>
 * </ol>
 * Compression codecs (bit-packing, RLE, FSST, zstd/lz4, byte-stream-split) come from
 * {@code dev.lanceflink.encoding.compression}; this package only composes them.
 */
package dev.lanceflink.encoding.v21;
