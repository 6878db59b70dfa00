package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;

/**
 * A fragment that fired a trigger but is not compacted by this run, and why (the plan JSON lists
 * them so an operator can see, for instance, that the budget deferred work).
 */
public record SkippedFragment(long fragmentId, String reason) implements Serializable {
    private static final long serialVersionUID = 1L;

    public SkippedFragment {
        requireNonNull(reason, "reason is null");
    }
}
