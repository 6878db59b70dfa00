package dev.lanceflink.compactor.flink;

import dev.lanceflink.compactor.core.TaskResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;

/**
 * {@link TaskResult} as bytes between the Flink tasks and the committing client. Plain Java
 * serialization of a record of strings, numbers and Lance-encoded transaction bytes: the job emits
 * {@code byte[]}, a type Flink serializes natively, so no Kryo or POJO analysis is involved.
 */
final class TaskResults {
    private TaskResults() {}

    static byte[] toBytes(TaskResult result) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(result);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Could not serialize the result of compacting fragment "
                            + result.task().fragmentId(),
                    e);
        }
        return bytes.toByteArray();
    }

    static TaskResult fromBytes(byte[] bytes) throws IOException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return (TaskResult) in.readObject();
        } catch (ClassNotFoundException | ClassCastException e) {
            throw new IOException(
                    "A compaction task returned a result this client cannot read (is the job running a"
                            + " different version of the compactor jar?)",
                    e);
        }
    }
}
