package dev.lanceflink.io;

import java.io.IOException;

/** The failure {@link FaultInjectingObjectStore} throws; its message says whether the call was applied. */
public final class InjectedFaultException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean applied;

    public InjectedFaultException(String message, boolean applied) {
        super(message);
        this.applied = applied;
    }

    /** Whether the underlying store performed the call before the failure was reported. */
    public boolean applied() {
        return applied;
    }
}
