package dev.lanceflink.it.s3;

/** Where a test table lives: the local file system or the S3 server (S3Proxy) of the test JVM. */
enum StoreKind {
    LOCAL,
    S3
}
