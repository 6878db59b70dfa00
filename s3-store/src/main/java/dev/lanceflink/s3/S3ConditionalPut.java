package dev.lanceflink.s3;

import dev.lanceflink.io.PutOutcomeUnknownException;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Put-if-absent with {@code If-None-Match: *}, the commit point of a table version.
 *
 * <p>The hard case is a request whose outcome the client did not see: the server stored the
 * object but the response was lost (the SDK then retries and gets 412 for its own object), or
 * every attempt failed and the last one may or may not have landed. Each call therefore tags its
 * object with a random creation id (user metadata {@value #CREATION_ID}) and, whenever the
 * outcome is not plainly "created", reads the object's id back:
 * <ul>
 *   <li>our id: one of our attempts created it → {@code true} (never reported as lost);
 *   <li>another id, or none (written by another tool): another writer won → {@code false}
 *       (ours can never land afterwards: the key is taken);
 *   <li>no object after a failure: nothing landed yet, so we put again with the same id; a
 *       delayed copy of an earlier attempt landing later is harmless, since it carries our id;
 *   <li>the id cannot be read: {@link PutOutcomeUnknownException}; never guessed.
 * </ul>
 * A commit is thus neither reported twice (a second writer only ever sees 412 and a foreign id)
 * nor lost (a landed attempt is always recognised as ours).
 */
final class S3ConditionalPut {
    private static final Logger LOG = LoggerFactory.getLogger(S3ConditionalPut.class);

    /** User-metadata key (sent as {@code x-amz-meta-lance-flink-creation-id}). */
    static final String CREATION_ID = "lance-flink-creation-id";

    /** Rounds of "the outcome is unknown, nothing is there, put again" before giving up. */
    static final int RESOLVE_ROUNDS = 3;

    private final S3ObjectStore store;

    S3ConditionalPut(S3ObjectStore store) {
        this.store = store;
    }

    boolean putIfAbsent(String key, byte[] content) throws IOException {
        String creationId = UUID.randomUUID().toString();
        String bucket = store.location().bucket();
        SdkException lastFailure = null;
        for (int round = 1; round <= RESOLVE_ROUNDS; round++) {
            try {
                store.client()
                        .putObject(
                                b -> b.bucket(bucket)
                                        .key(key)
                                        .ifNoneMatch("*")
                                        .metadata(Map.of(CREATION_ID, creationId))
                                        .contentLength((long) content.length),
                                RequestBody.fromBytes(content));
                return true;
            } catch (SdkException e) {
                if (S3Errors.isStatus(e, S3Errors.PRECONDITION_FAILED)) {
                    // The key exists: another writer's object, or ours from an attempt whose
                    // response was lost before the SDK retried.
                    return resolveExisting(key, creationId, e);
                }
                if (!mayHaveLanded(e)) {
                    throw store.error(e, "conditional PUT", key);
                }
                lastFailure = e;
                LOG.debug(
                        "Conditional PUT {} round {} failed with an unknown outcome; checking the object",
                        store.location().uriOf(key),
                        round,
                        e);
            }
            Optional<String> existing = readCreationId(key, creationId, lastFailure);
            if (existing.isPresent()) {
                return creationId.equals(existing.get());
            }
            // Nothing is there: no attempt has landed (yet). Putting again with the same id is safe.
        }
        throw new PutOutcomeUnknownException(
                "Conditional PUT " + store.location().uriOf(key) + " failed "
                        + RESOLVE_ROUNDS + " times (each after "
                        + store.config().maxAttempts()
                        + " attempts) and the object is still absent; a delayed attempt may still land with creation id "
                        + creationId + ". Re-check the table state before retrying the commit",
                lastFailure);
    }

    /**
     * Whether a failed request may have been applied. 4xx answers (403, 404 NoSuchBucket, 400)
     * are definite refusals, except 409 (a conflicting concurrent conditional write: AWS asks to
     * retry) and 408/429 (timeouts and throttling that outlasted the SDK's retries). 5xx and
     * client-side failures (connection reset, timeouts) may have been applied.
     */
    private static boolean mayHaveLanded(SdkException e) {
        if (e instanceof AwsServiceException a) {
            int s = a.statusCode();
            return s >= 500 || s == 409 || s == 408 || s == 429;
        }
        return true;
    }

    private boolean resolveExisting(String key, String creationId, SdkException conflict) throws IOException {
        Optional<String> existing = readCreationId(key, creationId, conflict);
        if (existing.isEmpty()) {
            throw new PutOutcomeUnknownException(
                    "Conditional PUT " + store.location().uriOf(key)
                            + " was refused with 412 (the object exists), but the object is gone when read back: something"
                            + " deleted it. Re-check the table state before retrying the commit",
                    conflict);
        }
        boolean ours = creationId.equals(existing.get());
        if (ours) {
            LOG.info(
                    "Conditional PUT {}: the 412 was for our own earlier attempt (lost response); the commit landed",
                    store.location().uriOf(key));
        }
        return ours;
    }

    /**
     * The creation id stored with {@code key}: empty if there is no object, "" for an object
     * without one. Failing to read it is an unknown outcome.
     */
    private Optional<String> readCreationId(String key, String creationId, SdkException cause)
            throws PutOutcomeUnknownException {
        Optional<HeadObjectResponse> head;
        try {
            head = store.headObject(key);
        } catch (IOException e) {
            PutOutcomeUnknownException unknown = new PutOutcomeUnknownException(
                    "Conditional PUT "
                            + store.location().uriOf(key) + " with creation id " + creationId
                            + " has an unknown outcome: reading the object back failed (" + e.getMessage()
                            + "). Re-check the table state before retrying the commit",
                    e);
            if (cause != null) {
                unknown.addSuppressed(cause);
            }
            throw unknown;
        }
        return head.map(h -> h.metadata().getOrDefault(CREATION_ID, ""));
    }
}
