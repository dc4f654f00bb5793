import { type PGlite, protocol } from "@electric-sql/pglite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";

type BackendMessage = Awaited<ReturnType<PGlite["execProtocolStream"]>>[number];
type Serializer = (value: unknown) => string;
type Parser = (text: string, typeId?: number) => unknown;

/** How many prepared statements one database keeps; the least recently used one is closed. */
const STATEMENT_CACHE_SIZE = 256;
/** Statements worth preparing: those a request repeats. DDL and transaction control are not. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** Statements that change no table, so prepared statements stay valid across them. */
const TRANSACTION_CONTROL = /^\s*(begin|start|commit|rollback|end|savepoint|release|set|show)\b/i;

interface Prepared {
  name: string;
  /** The parameter types PostgreSQL inferred, which choose each value's serializer. */
  paramTypes: number[];
  /**
   * The columns of its rows, as PostgreSQL described the statement when it was parsed (none for a
   * statement that returns no rows). Known once, so an execution asks no description of its own:
   * PGlite's reader copies and decodes every column name of every description it is sent.
   */
  fields: Field[];
}

interface Field {
  name: string;
  type: number;
  parse: Parser | undefined;
}

export interface PGliteDialectOptions {
  /**
   * Call PGlite's `syncToFs()` after each statement outside a transaction, as its `query()`
   * does (default true). A data directory on disk (Node's file system) writes through at once,
   * and its `syncToFs()` does nothing but take a lock: Kassa turns it off there.
   */
  syncToFs?: boolean;
}

/**
 * Kysely over PGlite, preparing each distinct statement once.
 *
 * PGlite's own `query()` costs six calls into its WebAssembly PostgreSQL per statement (parse,
 * describe, bind, describe, execute, sync), parses and plans the SQL every time, and copies its
 * whole table of type parsers into a new object for every result. On the sign-in path that was
 * about a third of the server's own CPU per request. This driver keeps a named prepared
 * statement per SQL text (an LRU of {@link STATEMENT_CACHE_SIZE}), learns its parameter types
 * and its columns once, and then runs it as one batch (bind, execute, sync) in a single call,
 * parsing rows with PGlite's own parsers and serializing values with its own serializers, so
 * values go in and come out exactly as they do through `query()`.
 *
 * Any other statement (DDL, `begin`, `commit`) is not prepared: without parameters it goes
 * through the simple protocol in one call, as PGlite's `exec()` sends it, with them unnamed, as
 * `query()` sends it. A DDL statement also forgets every prepared statement, so none outlives
 * a change of the tables it reads. Statements run under PGlite's query mutex, like its own
 * `query()` and `listen()`. One dialect per PGlite instance: prepared statement names are the
 * driver's own.
 */
/** A statement that begins with `select`: it changes no row (Kassa's selects call no function that writes a table). */
const PLAIN_SELECT = /^\s*select\s/i;

export class PGliteDialect implements Dialect {
  /**
   * How many statements that may write this dialect has run: every statement but a plain
   * `select` (transaction control, DDL and `with` statements count too). PGlite is opened by
   * one process and every statement of this process goes through here (`listen` aside), so
   * while the count stands still nothing in the database has changed: a cache may keep what it
   * read at a count for as long as the count is the same (auth/session-reader.ts).
   */
  readonly writes = { count: 0 };

  constructor(
    private readonly client: PGlite,
    private readonly options: PGliteDialectOptions = {},
  ) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.client, this.options.syncToFs ?? true, this.writes);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Dialect interface takes Kysely<any>.
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  /** One connection, as PGlite is one session: callers queue for it. */
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly client: PGlite,
    syncToFs: boolean,
    writes: { count: number },
  ) {
    this.connection = new PGliteConnection(client, syncToFs, writes);
  }

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    return this.connection;
  }

  async releaseConnection() {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const begin = settings.isolationLevel
      ? `start transaction isolation level ${settings.isolationLevel}`
      : "begin";
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy() {
    if (!this.client.closed) await this.client.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();
  private nextName = 1;

  constructor(
    private readonly client: PGlite,
    private readonly syncToFs: boolean,
    private readonly writes: { count: number },
  ) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Counted before it runs: a reader that compares the count after it sees the change.
    if (!PLAIN_SELECT.test(compiled.sql)) this.writes.count++;
    return this.client._runExclusiveQuery(() => this.run<R>(compiled.sql, compiled.parameters));
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(compiled);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) };
  }

  private async run<R>(text: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    if (!PREPARABLE.test(text)) return this.runUnprepared<R>(text, parameters);
    const batch: Uint8Array[] = [];
    let prepared = this.statements.get(text);
    if (prepared) {
      // Most recently used last: re-inserting keeps the Map in LRU order.
      this.statements.delete(text);
      this.statements.set(text, prepared);
    } else {
      prepared = await this.describe(text, `kassa_${this.nextName++}`);
      this.remember(text, prepared, batch);
    }
    return this.execute<R>(prepared, parameters, batch);
  }

  /**
   * A statement not worth preparing (transaction control, DDL): without parameters in one call
   * through the simple protocol, as PGlite's `exec()`; with them, unnamed, as its `query()`.
   * Anything but transaction control also forgets the prepared statements: DDL can change what
   * they read.
   */
  private async runUnprepared<R>(text: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    const batch: Uint8Array[] = [];
    if (!TRANSACTION_CONTROL.test(text) && this.statements.size > 0) {
      for (const { name } of this.statements.values())
        batch.push(protocol.serialize.close({ type: "S", name }));
      batch.push(protocol.serialize.sync());
      this.statements.clear();
    }
    if (parameters.length === 0) {
      batch.push(protocol.serialize.query(text));
      return this.result<R>(await this.exec(batch));
    }
    if (batch.length > 0) await this.exec(batch);
    return this.execute<R>(await this.describe(text, ""), parameters, []);
  }

  /** Parses a statement and learns the parameter types PostgreSQL inferred for it, and its columns. */
  private async describe(text: string, name: string): Promise<Prepared> {
    const described = await this.exec([
      protocol.serialize.parse({ name, text }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync(),
    ]);
    let paramTypes: number[] = [];
    let fields: Field[] = [];
    for (const message of described) {
      if (message.name === "parameterDescription")
        paramTypes = (message as unknown as { dataTypeIDs: number[] }).dataTypeIDs;
      else if (message.name === "rowDescription") fields = this.fieldsOf(message);
    }
    return { name, paramTypes, fields };
  }

  private fieldsOf(description: BackendMessage): Field[] {
    const parsers = this.client.parsers as Record<number, Parser>;
    return (description as unknown as { fields: Array<{ name: string; dataTypeID: number }> }).fields.map(
      (f) => ({
        name: f.name,
        type: f.dataTypeID,
        parse: parsers[f.dataTypeID],
      }),
    );
  }

  /** Binds the values to a parsed statement and runs it, after any messages already in `batch`. */
  private async execute<R>(prepared: Prepared, parameters: readonly unknown[], batch: Uint8Array[]) {
    const serializers = this.client.serializers as Record<number, Serializer>;
    const values = parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = serializers[prepared.paramTypes[i] ?? 0];
      return serialize ? serialize(value) : String(value);
    });
    batch.push(
      protocol.serialize.bind({ statement: prepared.name, values }),
      protocol.serialize.execute(),
      protocol.serialize.sync(),
    );
    return this.result<R>(await this.exec(batch), prepared.fields);
  }

  /** Caches a prepared statement, closing the least recently used one beyond the limit. */
  private remember(text: string, prepared: Prepared, batch: Uint8Array[]) {
    this.statements.set(text, prepared);
    if (this.statements.size <= STATEMENT_CACHE_SIZE) return;
    const [oldest] = this.statements;
    if (!oldest) return;
    this.statements.delete(oldest[0]);
    batch.push(protocol.serialize.close({ type: "S", name: oldest[1].name }));
  }

  /** One call into PGlite for a batch of messages; throws the first error PostgreSQL raised. */
  private async exec(batch: Uint8Array[]): Promise<BackendMessage[]> {
    let length = 0;
    for (const part of batch) length += part.length;
    const message = new Uint8Array(length);
    let offset = 0;
    for (const part of batch) {
      message.set(part, offset);
      offset += part.length;
    }
    const messages = await this.client.execProtocolStream(message, { syncToFs: false });
    if (this.syncToFs) {
      // Outside a transaction the statement has committed: let PGlite flush its file system.
      const ready = messages.findLast((m) => m.name === "readyForQuery") as { status?: string } | undefined;
      if (ready?.status === "I") await this.client.syncToFs();
    }
    return messages;
  }

  /** Rows and counts from the answer; `fields` are the columns when no description comes with it. */
  private result<R>(messages: BackendMessage[], fields: Field[] = []): QueryResult<R> {
    const rows: R[] = [];
    let affected: bigint | undefined;
    for (const message of messages) {
      if (message.name === "rowDescription") {
        fields = this.fieldsOf(message);
      } else if (message.name === "dataRow") {
        const values = (message as unknown as { fields: Array<string | null> }).fields;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) {
          const field = fields[i] as Field;
          const value = values[i] ?? null;
          row[field.name] = value === null ? null : field.parse ? field.parse(value, field.type) : value;
        }
        rows.push(row as R);
      } else if (message.name === "commandComplete") {
        const count = affectedRows((message as unknown as { text: string }).text);
        if (count !== undefined) affected = (affected ?? 0n) + count;
      }
    }
    // As Kysely's PostgreSQL driver: a count for every INSERT, UPDATE, DELETE or MERGE, even 0.
    return affected === undefined ? { rows } : { rows, numAffectedRows: affected };
  }
}

/** The row count of an INSERT, UPDATE, DELETE, MERGE or COPY command tag. */
function affectedRows(tag: string): bigint | undefined {
  const parts = tag.split(" ");
  switch (parts[0]) {
    case "INSERT":
      return BigInt(parts[2] ?? 0);
    case "UPDATE":
    case "DELETE":
    case "MERGE":
    case "COPY":
      return BigInt(parts[1] ?? 0);
    default:
      return undefined;
  }
}
