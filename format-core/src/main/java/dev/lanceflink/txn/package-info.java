/**
 * Transactions and commits: the {@link dev.lanceflink.txn.Transaction} model and codec, building
 * the next manifest from a transaction ({@link dev.lanceflink.txn.ManifestBuilder}, one applier per
 * operation), the conflict matrix ({@link dev.lanceflink.txn.ConflictResolver}) and the optimistic
 * commit loop ({@link dev.lanceflink.txn.TableCommitter}).
 */
package dev.lanceflink.txn;
