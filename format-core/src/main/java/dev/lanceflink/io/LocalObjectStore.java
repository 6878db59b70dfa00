package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A store on the local file system. {@link #putIfAbsent} writes a private temporary file and
 * publishes it with a hard link, which fails atomically if the target exists; it never uses
 * rename, because rename replaces a concurrent commit's manifest silently.
 */
public final class LocalObjectStore implements ObjectStore {
    private static final String TEMP_PREFIX = ".tmp-";

    private final Path root;

    public LocalObjectStore(Path root) {
        this.root = requireNonNull(root, "root is null").toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    @Override
    public String rootUri() {
        return root.toString();
    }

    private Path resolve(String path) {
        requireNonNull(path, "path is null");
        Path p = root.resolve(path).normalize();
        if (!p.startsWith(root)) {
            throw new IllegalArgumentException("path '" + path + "' escapes the store root " + root);
        }
        return p;
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        try {
            return Files.readAllBytes(resolve(path));
        } catch (NoSuchFileException e) {
            throw notFound(path);
        }
    }

    private FileNotFoundException notFound(String path) {
        return new FileNotFoundException("Object not found: " + resolve(path));
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        try {
            return new LocalRangeReader(resolve(path), FileChannel.open(resolve(path), StandardOpenOption.READ));
        } catch (NoSuchFileException e) {
            throw notFound(path);
        }
    }

    /**
     * Opening a local file learns its size for free, so {@code knownSize} is not needed; it is
     * checked instead, so that metadata recording a wrong size fails here as it would on S3.
     */
    @Override
    public RangeReader openReader(String path, long knownSize) throws IOException {
        RangeReader reader = openReader(path);
        if (knownSize > 0) {
            long actual = reader.size();
            if (actual != knownSize) {
                reader.close();
                throw new WrongObjectSizeException(resolve(path).toString(), knownSize, actual);
            }
        }
        return reader;
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        Path p = resolve(path);
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            if (!a.isRegularFile()) {
                return Optional.empty();
            }
            return Optional.of(
                    new ObjectInfo(path, a.size(), a.lastModifiedTime().toMillis()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public OutputStream create(String path) throws IOException {
        Path target = resolve(path);
        Files.createDirectories(target.getParent());
        Path temp = tempSibling(target);
        OutputStream out = Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new TempFileOutputStream(out, temp, target);
    }

    /** Writes to a private temporary file and moves it into place only on a successful close. */
    private static final class TempFileOutputStream extends FilterOutputStream implements AbortableOutputStream {
        private final Path temp;
        private final Path target;
        private boolean closed;

        TempFileOutputStream(OutputStream out, Path temp, Path target) {
            super(out);
            this.temp = temp;
            this.target = target;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                out.close();
                // The target name is new and unique (a data or deletion file), so a move is
                // safe here; it only makes a complete file appear at once.
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target);
                }
            } finally {
                Files.deleteIfExists(temp);
            }
        }

        @Override
        public void abort() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                out.close();
            } finally {
                Files.deleteIfExists(temp); // never moved to the target
            }
        }
    }

    @Override
    public void put(String path, byte[] content) throws IOException {
        try (OutputStream out = create(path)) {
            out.write(content);
        }
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        Path target = resolve(path);
        Files.createDirectories(target.getParent());
        Path temp = tempSibling(target);
        try {
            Files.write(temp, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            try {
                Files.createLink(target, temp);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static Path tempSibling(Path target) {
        return target.resolveSibling(TEMP_PREFIX + target.getFileName() + "-" + UUID.randomUUID());
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) throws IOException {
        Path dir = resolve(directory);
        if (!Files.isDirectory(dir)) {
            return List.<ObjectInfo>of().iterator();
        }
        List<ObjectInfo> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String name = p.getFileName().toString();
                if (name.startsWith(TEMP_PREFIX)) {
                    continue;
                }
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class);
                } catch (NoSuchFileException e) {
                    continue; // deleted while listing
                }
                if (a.isRegularFile()) {
                    String key = directory.isEmpty() ? name : directory + "/" + name;
                    out.add(new ObjectInfo(key, a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        }
        out.sort((x, y) -> x.path().compareTo(y.path()));
        return out.iterator();
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) throws IOException {
        List<ObjectInfo> out = new ArrayList<>();
        // Walk only below the prefix's directory: other writers' temporary files elsewhere (a
        // sink's data files in flight) come and go while we walk, and are none of our business.
        int slash = prefix.lastIndexOf('/');
        Path start = slash < 0 ? root : resolve(prefix.substring(0, slash));
        if (!Files.isDirectory(start)) {
            return out.iterator();
        }
        Files.walkFileTree(start, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path p, BasicFileAttributes a) {
                if (!a.isRegularFile() || p.getFileName().toString().startsWith(TEMP_PREFIX)) {
                    return FileVisitResult.CONTINUE;
                }
                String key = root.relativize(p).toString().replace('\\', '/');
                if (key.startsWith(prefix)) {
                    out.add(new ObjectInfo(key, a.size(), a.lastModifiedTime().toMillis()));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path p, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // deleted while listing, like a temp file renamed into place
                }
                throw e;
            }
        });
        return out.iterator();
    }

    @Override
    public List<String> listDirectories(String directory) throws IOException {
        Path dir = resolve(directory);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String name = p.getFileName().toString();
                if (!name.startsWith(TEMP_PREFIX) && Files.isDirectory(p)) {
                    out.add(name);
                }
            }
        }
        out.sort(null);
        return out;
    }

    @Override
    public void delete(String path) throws IOException {
        Files.deleteIfExists(resolve(path));
    }

    private static final class LocalRangeReader implements RangeReader {
        private final Path path;
        private final FileChannel channel;

        LocalRangeReader(Path path, FileChannel channel) {
            this.path = path;
            this.channel = channel;
        }

        @Override
        public long size() throws IOException {
            return channel.size();
        }

        @Override
        public ByteBuffer read(long offset, int length) throws IOException {
            if (offset < 0 || length < 0 || offset + length > channel.size()) {
                throw new EOFException("Read of " + length + " bytes at offset " + offset + " is outside " + path + " ("
                        + channel.size() + " bytes)");
            }
            ByteBuffer buf = ByteBuffer.allocate(length);
            long pos = offset;
            while (buf.hasRemaining()) {
                int n = channel.read(buf, pos); // positional read: safe for concurrent callers
                if (n < 0) {
                    throw new EOFException("Unexpected end of " + path + " at offset " + pos);
                }
                pos += n;
            }
            buf.flip();
            return buf;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
