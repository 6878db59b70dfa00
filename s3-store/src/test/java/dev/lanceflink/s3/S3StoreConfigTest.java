package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class S3StoreConfigTest {

    @Test
    void readsLanceKeys() {
        S3StoreConfig c = S3StoreConfig.fromOptions(Map.of(
                "aws_endpoint", "http://127.0.0.1:9000",
                "aws_region", "eu-west-1",
                "aws_access_key_id", "AKID",
                "aws_secret_access_key", "SECRET",
                "aws_session_token", "TOKEN",
                "allow_http", "true",
                "aws_virtual_hosted_style_request", "false",
                "client_max_retries", "3",
                "connect_timeout", "2s",
                "request_timeout", "1m"));

        assertThat(c.endpoint()).isEqualTo(URI.create("http://127.0.0.1:9000"));
        assertThat(c.region()).isEqualTo("eu-west-1");
        assertThat(c.accessKeyId()).isEqualTo("AKID");
        assertThat(c.secretAccessKey()).isEqualTo("SECRET");
        assertThat(c.sessionToken()).isEqualTo("TOKEN");
        assertThat(c.allowHttp()).isTrue();
        assertThat(c.virtualHostedStyle()).isFalse();
        assertThat(c.maxAttempts()).isEqualTo(4);
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void acceptsAliasesInAnyCase() {
        S3StoreConfig c = S3StoreConfig.fromOptions(Map.of(
                "ENDPOINT", "https://s3.example.com",
                "Region", "us-west-2",
                "access_key_id", "K",
                "secret_access_key", "S",
                "virtual_hosted_style_request", "TRUE"));

        assertThat(c.endpoint()).isEqualTo(URI.create("https://s3.example.com"));
        assertThat(c.region()).isEqualTo("us-west-2");
        assertThat(c.accessKeyId()).isEqualTo("K");
        assertThat(c.virtualHostedStyle()).isTrue();
    }

    @Test
    void optionsBeatEnvironmentWhichBeatsDefaults() {
        Map<String, String> env = Map.of(
                "AWS_ENDPOINT_URL", "http://env-host:9000",
                "AWS_REGION", "env-region",
                "AWS_DEFAULT_REGION", "ignored-region",
                "AWS_ACCESS_KEY_ID", "ENVKEY",
                "AWS_SECRET_ACCESS_KEY", "ENVSECRET",
                "AWS_ALLOW_HTTP", "true");
        S3StoreConfig fromEnv = S3StoreConfig.fromOptions(Map.of(), env);
        assertThat(fromEnv.endpoint()).isEqualTo(URI.create("http://env-host:9000"));
        assertThat(fromEnv.region()).isEqualTo("env-region");
        assertThat(fromEnv.accessKeyId()).isEqualTo("ENVKEY");
        assertThat(fromEnv.virtualHostedStyle())
                .as("path-style by default with a custom endpoint")
                .isFalse();

        S3StoreConfig overridden = S3StoreConfig.fromOptions(Map.of("aws_region", "opt-region"), env);
        assertThat(overridden.region()).isEqualTo("opt-region");
        assertThat(overridden.accessKeyId()).isEqualTo("ENVKEY");
    }

    @Test
    void defaultsForAwsItself() {
        S3StoreConfig c = S3StoreConfig.fromOptions(Map.of());

        assertThat(c.endpoint()).isNull();
        assertThat(c.region()).isNull();
        assertThat(c.accessKeyId()).isNull();
        assertThat(c.virtualHostedStyle()).isTrue();
        assertThat(c.maxAttempts()).isEqualTo(11);
        assertThat(c.partSizeBytes()).isEqualTo(16L << 20);
        assertThat(c.listPageSize()).isEqualTo(1000);
    }

    @Test
    void parsesSizesAndDurations() {
        S3StoreConfig c = S3StoreConfig.fromOptions(Map.of(
                "s3_part_size", "8MiB",
                "s3_coalesce_gap", "64k",
                "s3_retry_base_delay", "250ms",
                "s3_retry_max_delay", "1.5s"));

        assertThat(c.partSizeBytes()).isEqualTo(8L << 20);
        assertThat(c.coalesceGapBytes()).isEqualTo(64 << 10);
        assertThat(c.retryBaseDelay()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.retryMaxDelay()).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void invalidValuesNameTheKey() {
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("allow_http", "maybe")))
                .hasMessage("allow_http must be true or false, was 'maybe'");
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("connect_timeout", "5 fortnights")))
                .hasMessageContaining("connect_timeout has an unknown time unit 'fortnights'");
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("s3_part_size", "1MiB")))
                .hasMessageContaining("s3_part_size must be between 5242880 and 5368709120 bytes");
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("client_max_retries", "-1")))
                .hasMessage("client_max_retries must be between 0 and 100, was -1");
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("aws_endpoint", "ftp://host")))
                .hasMessageContaining("not an http(s) URL");
        assertThatThrownBy(
                        () -> S3StoreConfig.fromOptions(Map.of("aws_endpoint", "https://a", "endpoint", "https://b")))
                .hasMessageContaining("aws_endpoint twice");
    }

    @Test
    void plainHttpNeedsAllowHttp() {
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("aws_endpoint", "http://127.0.0.1:9000")))
                .hasMessageContaining("allow_http=true");
    }

    @Test
    void credentialsComeInPairs() {
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("aws_access_key_id", "K")))
                .hasMessageContaining("aws_access_key_id is set but aws_secret_access_key is not");
        assertThatThrownBy(() -> S3StoreConfig.fromOptions(Map.of("aws_session_token", "T")))
                .hasMessageContaining("session token");
    }

    @Test
    void secretsAreNotPrinted() {
        S3StoreConfig c = S3StoreConfig.fromOptions(Map.of(
                "aws_access_key_id", "AKID", "aws_secret_access_key", "TOPSECRET", "aws_session_token", "TOKENVALUE"));

        assertThat(c.toString()).contains("AKID").doesNotContain("TOPSECRET").doesNotContain("TOKENVALUE");
    }
}
