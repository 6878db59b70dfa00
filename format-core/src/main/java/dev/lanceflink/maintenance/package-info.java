/**
 * Table maintenance that deletes: {@link dev.lanceflink.maintenance.TableCleanup} removes old
 * versions and the files no retained version references, following Lance's
 * {@code cleanup_old_versions} rules, plus retention of tags and of each writer's newest commit
 * marker (so an exactly-once sink can still find its last commit after a restore).
 *
 * <p>Planning is read-only and prints as JSON ({@link dev.lanceflink.maintenance.CleanupPlan#toJson()});
 * execution deletes manifests before data, and re-reads versions committed after planning so their
 * files survive.
 */
package dev.lanceflink.maintenance;
