package dev.lanceflink.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that provides one {@link S3ProxyServer} per test JVM, shared by all test
 * classes that use it (started on first use, stopped when the test run ends). Use either
 * <pre>{@code
 * @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();
 * ... S3.server() ...
 * }</pre>
 * or {@code @ExtendWith(S3ProxyExtension.class)} with an {@link S3ProxyServer} parameter in a
 * {@code @BeforeAll}/{@code @BeforeEach}/test method.
 */
public final class S3ProxyExtension implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(S3ProxyExtension.class);

    private volatile S3ProxyServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = shared(context);
    }

    /** The server; valid from {@code beforeAll} on. */
    public S3ProxyServer server() {
        if (server == null) {
            throw new IllegalStateException(
                    "S3ProxyExtension is not started: register it with @RegisterExtension on a static field");
        }
        return server;
    }

    private static S3ProxyServer shared(ExtensionContext context) {
        // The root store outlives every test class; JUnit closes the AutoCloseable server at the end.
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        S3ProxyServer.class,
                        k -> {
                            try {
                                return S3ProxyServer.start();
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        S3ProxyServer.class);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == S3ProxyServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return shared(extensionContext);
    }
}
