package dev.lanceflink.encoding.compression;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Test access to the Lance 7.0.0 fixtures on the test classpath ({@code /fixtures/lance-7.0.0}):
 * the raw bytes of a dataset's single data file, its expected rows, and a byte-pattern search. The
 * golden tests locate compressed units inside real Lance files by their documented leading bytes,
 * so they need no container parser.
 */
final class LanceFixtureBytes {
    private static final String ROOT = "/fixtures/lance-7.0.0/";

    private LanceFixtureBytes() {}

    /** All bytes of the one data file of fixture {@code name}, as a little-endian buffer. */
    static ByteBuffer dataFile(String name) {
        URL url = LanceFixtureBytes.class.getResource(ROOT + name + ".lance/data");
        if (url == null) {
            throw new IllegalStateException("fixture " + name + " is not on the test classpath under " + ROOT);
        }
        try (Stream<Path> files = Files.list(Paths.get(url.toURI()))) {
            Path file = files.filter(p -> p.toString().endsWith(".lance"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("fixture " + name + " has no data file"));
            return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code rows} array of {@code <name>.expected.json}. */
    static JsonNode rows(String name) {
        try (InputStream in = LanceFixtureBytes.class.getResourceAsStream(ROOT + name + ".expected.json")) {
            if (in == null) {
                throw new IllegalStateException("fixture " + name + ".expected.json is not on the test classpath");
            }
            return new ObjectMapper().readTree(in).get("rows");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every offset at which {@code pattern} occurs in {@code file}. */
    static List<Integer> find(ByteBuffer file, byte[] pattern) {
        List<Integer> hits = new ArrayList<>();
        byte[] hay = file.array();
        outer:
        for (int i = 0; i + pattern.length <= hay.length; i++) {
            for (int k = 0; k < pattern.length; k++) {
                if (hay[i + k] != pattern[k]) {
                    continue outer;
                }
            }
            hits.add(i);
        }
        return hits;
    }

    static byte[] hex(String hex) {
        String h = hex.replace(" ", "").replace("|", "");
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
