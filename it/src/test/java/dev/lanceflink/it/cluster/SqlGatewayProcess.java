package dev.lanceflink.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A running SQL gateway ({@link FlinkSessionCluster#startSqlGateway}) and the calls of its REST
 * API (version 1) that a client makes: open a session, execute a statement, fetch its result
 * until the end of the stream.
 */
public final class SqlGatewayProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration FETCH_TIMEOUT = Duration.ofMinutes(3);

    private final Process process;
    private final int port;
    private final HttpClient http;

    SqlGatewayProcess(Process process, int port, HttpClient http) {
        this.process = process;
        this.port = port;
        this.http = http;
    }

    /** {@code localhost:<port>}, the value of {@code sql-client.sh gateway --endpoint}. */
    public String endpoint() {
        return "localhost:" + port;
    }

    /** Opens a session with {@code properties} (session configuration); returns its handle. */
    public String openSession(Map<String, String> properties) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.set("properties", JSON.valueToTree(properties));
        return post("/v1/sessions", body).path("sessionHandle").asText();
    }

    /**
     * Executes {@code statement} in {@code session} and fetches its whole result: the rows'
     * fields as JSON arrays, in order.
     *
     * @throws IOException if the gateway reports an error (its message included)
     */
    public List<JsonNode> execute(String session, String statement) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("statement", statement);
        String operation = post("/v1/sessions/" + session + "/statements", body)
                .path("operationHandle")
                .asText();
        String next = "/v1/sessions/" + session + "/operations/" + operation + "/result/0";
        List<JsonNode> rows = new ArrayList<>();
        long deadline = System.nanoTime() + FETCH_TIMEOUT.toNanos();
        while (next != null && !next.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "no end of the result of '" + statement + "' within " + FETCH_TIMEOUT.toSeconds() + " s");
            }
            JsonNode page = get(next);
            String type = page.path("resultType").asText();
            if (type.equals("NOT_READY")) {
                sleep();
                continue;
            }
            for (JsonNode row : page.path("results").path("data")) {
                rows.add(row.path("fields"));
            }
            if (type.equals("EOS")) {
                break;
            }
            next = page.path("nextResultUri").asText(null);
        }
        return rows;
    }

    /** GET {@code path}; the JSON answer. */
    public JsonNode get(String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    }

    private JsonNode post(String path, JsonNode body) throws IOException {
        return send(HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private JsonNode send(HttpRequest request) throws IOException {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during " + request.method() + " " + request.uri(), e);
        }
        if (response.statusCode() != 200) {
            throw new IOException(request.method() + " " + request.uri() + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return JSON.readTree(response.body());
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a result", e);
        }
    }

    /** Stops the gateway process and its children. */
    @Override
    public void close() {
        ChildJvm.stopTree(process, Duration.ofSeconds(10));
    }
}
