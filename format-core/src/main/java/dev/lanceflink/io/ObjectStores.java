package dev.lanceflink.io;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/** Opens the right {@link ObjectStore} for a table URI. */
public final class ObjectStores {
    private ObjectStores() {}

    /**
     * Opens a store rooted at {@code uri}: a local path, a {@code file:} URI, or any scheme an
     * {@link ObjectStoreProvider} on the class path registers (such as {@code s3}).
     */
    public static ObjectStore open(String uri, Map<String, String> storageOptions) throws IOException {
        String scheme = schemeOf(uri);
        if (scheme == null) {
            return new LocalObjectStore(Path.of(uri));
        }
        if (scheme.equals("file")) {
            return new LocalObjectStore(Path.of(URI.create(uri)));
        }
        for (ObjectStoreProvider provider : ServiceLoader.load(ObjectStoreProvider.class)) {
            if (provider.schemes().contains(scheme)) {
                return provider.open(uri, storageOptions == null ? Map.of() : storageOptions);
            }
        }
        throw new IOException("No object store for URI scheme '" + scheme + "' in '" + uri
                + "': supported are local paths, file:// and (with the s3-store module on the class path) s3://");
    }

    /** The lower-case scheme of a URI, or null for a plain path (including Windows drive letters). */
    static String schemeOf(String uri) {
        int colon = uri.indexOf(':');
        if (colon <= 1) {
            return null;
        }
        for (int i = 0; i < colon; i++) {
            char c = uri.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '+' || c == '-' || c == '.')) {
                return null;
            }
        }
        return uri.substring(0, colon).toLowerCase(Locale.ROOT);
    }
}
