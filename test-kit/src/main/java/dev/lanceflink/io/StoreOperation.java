package dev.lanceflink.io;

/** The calls of {@link ObjectStore} and {@link RangeReader}, as counted or faulted by the test wrappers. */
public enum StoreOperation {
    READ_ALL,
    OPEN_READER,
    /** One {@link RangeReader#read} call. */
    RANGE_READ,
    /** One {@link RangeReader#readRanges} call (however many ranges). */
    RANGES_READ,
    HEAD,
    /** {@link ObjectStore#create}; a fault of this kind hits the stream's {@code close}. */
    CREATE,
    PUT,
    PUT_IF_ABSENT,
    LIST,
    LIST_RECURSIVE,
    DELETE
}
