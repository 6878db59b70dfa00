-- The SQL part of the quickstart: bin/lance-flink sql -f examples/quickstart.sql
-- doc-test: run by examples/quickstart.sh
-- A Lance catalog over a local warehouse directory; tables are <warehouse>/<db>/<table>.lance.
CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = 'quickstart-data/warehouse');
USE CATALOG lake;
CREATE TABLE IF NOT EXISTS users (id BIGINT NOT NULL, name STRING, age INT, PRIMARY KEY (id) NOT ENFORCED);
-- Batch INSERT into a primary-key table upserts: re-running the script updates, never duplicates.
INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40), (4, 'Dan', 22);
-- A data overlay file per fragment holding just the new ages of its rows; no row is rewritten or moved.
UPDATE users SET age = age + 1 WHERE id IN (2, 4);
-- A deletion vector.
DELETE FROM users WHERE name = 'Carol';
SELECT * FROM users ORDER BY id;
