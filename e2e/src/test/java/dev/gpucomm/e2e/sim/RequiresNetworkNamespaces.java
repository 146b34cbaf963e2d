package dev.gpucomm.e2e.sim;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks tests that put simulated pods in network namespaces of their own: where this machine cannot
 * make them (not root, or {@code ip netns add} fails), they are skipped with the reason.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(NetworkNamespacesCondition.class)
public @interface RequiresNetworkNamespaces {}
