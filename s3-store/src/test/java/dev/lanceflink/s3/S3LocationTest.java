package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class S3LocationTest {

    @Test
    void parsesBucketAndPrefix() {
        S3Location l = S3Location.parse("s3://my-bucket/warehouse//db/table/");

        assertThat(l.bucket()).isEqualTo("my-bucket");
        assertThat(l.prefix()).isEqualTo("warehouse/db/table");
        assertThat(l.key("_versions/1.manifest")).isEqualTo("warehouse/db/table/_versions/1.manifest");
        assertThat(l.directoryPrefix("_versions")).isEqualTo("warehouse/db/table/_versions/");
        assertThat(l.directoryPrefix("")).isEqualTo("warehouse/db/table/");
        assertThat(l.pathOf("warehouse/db/table/data/a.lance")).isEqualTo("data/a.lance");
        assertThat(l.rootUri()).isEqualTo("s3://my-bucket/warehouse/db/table");
    }

    @Test
    void bucketRootHasAnEmptyPrefix() {
        S3Location l = S3Location.parse("S3A://bucket");

        assertThat(l.prefix()).isEmpty();
        assertThat(l.key("a/b")).isEqualTo("a/b");
        assertThat(l.directoryPrefix("")).isEmpty();
        assertThat(l.directoryPrefix("a")).isEqualTo("a/");
        assertThat(l.rootUri()).isEqualTo("s3://bucket");
    }

    @Test
    void rejectsMalformedUris() {
        assertThatThrownBy(() -> S3Location.parse("gs://b/t")).hasMessageContaining("Not an S3 URI");
        assertThatThrownBy(() -> S3Location.parse("s3:///t")).hasMessageContaining("has no bucket");
        assertThatThrownBy(() -> S3Location.parse("s3://b/t?region=x")).hasMessageContaining("storage options");
        assertThatThrownBy(() -> S3Location.parse("s3://b/a/../c")).hasMessageContaining("'..'");
        assertThatThrownBy(() -> S3Location.parse("s3://bad bucket/t"))
                .hasMessageContaining("invalid character ' ' at index 3");
        assertThatThrownBy(() -> S3Location.parse("s3://b/t").key("/abs")).hasMessageContaining("no leading '/'");
        assertThatThrownBy(() -> S3Location.parse("s3://b/t").pathOf("other/x"))
                .hasMessageContaining("outside the store prefix");
    }
}
