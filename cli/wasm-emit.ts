// A small assembler for WebAssembly functions written in TypeScript: the
// opcodes by name, structured blocks whose branches name them, and the
// sections of a module (https://webassembly.github.io/spec/core/binary/).
// cli/context-scan-wasm.ts writes its scan with it.

export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128_TYPE = 0x7b;
/** The prefix of the vector instructions. */
export const V128 = 0xfd;
/** Opcodes by name (https://webassembly.github.io/spec/core/binary/instructions.html). */
export const op = {
  add: 0x6a,
  sub: 0x6b,
  and: 0x71,
  shl: 0x74,
  ctz: 0x68,
  eq: 0x46,
  ne: 0x47,
  eqz: 0x45,
  gtU: 0x4b,
  geU: 0x4f,
  select: 0x1b,
  i64Xor: 0x85,
  i64Mul: 0x7e,
  i64ShrU: 0x88,
  i64Ne: 0x52,
  i64ExtendU: 0xad,
  wrap: 0xa7,
} as const;

/** Vector instructions (after the V128 prefix) by name. */
export const vec = {
  load: 0x00,
  const: 0x0c,
  eq: 0x23,
  ltU: 0x26,
  gtU: 0x28,
  or: 0x50,
  anyTrue: 0x53,
  bitmask: 0x64,
} as const;

export function uleb(out: number[], v: number): void {
  do {
    const b = v & 0x7f;
    v >>>= 7;
    out.push(v ? b | 0x80 : b);
  } while (v);
}

function sleb(out: number[], v: bigint): void {
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && !(b & 0x40)) || (v === -1n && b & 0x40)) return void out.push(b);
    out.push(b | 0x80);
  }
}

/** A function's code, written in order: its locals by name, and a branch names its block (its depth is counted here). */
export class Emit<Local extends string> {
  readonly code: number[] = [];
  private readonly labels: string[] = [];

  constructor(private readonly names: readonly Local[]) {}

  op(...bytes: number[]): this {
    for (const b of bytes) this.code.push(b);
    return this;
  }
  get(l: Local): this {
    this.code.push(0x20);
    uleb(this.code, this.index(l));
    return this;
  }
  set(l: Local): this {
    this.code.push(0x21);
    uleb(this.code, this.index(l));
    return this;
  }
  private index(l: Local): number {
    const k = this.names.indexOf(l);
    if (k < 0) throw new Error(`wasm-emit: no local ${l}`);
    return k;
  }
  i32(v: number): this {
    this.code.push(0x41);
    sleb(this.code, BigInt(v | 0));
    return this;
  }
  i64(v: bigint): this {
    this.code.push(0x42);
    sleb(this.code, BigInt.asIntN(64, v));
    return this;
  }
  /** A load or store with its memarg (alignment hint 0: any address). */
  mem(opcode: number): this {
    return this.op(opcode, 0x00, 0x00);
  }
  load8(): this {
    return this.mem(0x2d);
  }
  load32(): this {
    return this.mem(0x28);
  }
  load64(): this {
    return this.mem(0x29);
  }
  store32(): this {
    return this.mem(0x36);
  }
  store8(): this {
    return this.mem(0x3a);
  }
  private nest(opcode: number, name: string, body: () => void): this {
    this.code.push(opcode, 0x40);
    this.labels.push(name);
    body();
    this.labels.pop();
    this.code.push(0x0b);
    return this;
  }
  block(name: string, body: () => void): this {
    return this.nest(0x02, name, body);
  }
  loop(name: string, body: () => void): this {
    return this.nest(0x03, name, body);
  }
  private depth(name: string): number {
    const d = this.labels.lastIndexOf(name);
    if (d < 0) throw new Error(`context-scan-wasm: no block ${name}`);
    return this.labels.length - 1 - d;
  }
  br(name: string): this {
    this.code.push(0x0c);
    uleb(this.code, this.depth(name));
    return this;
  }
  brIf(name: string): this {
    this.code.push(0x0d);
    uleb(this.code, this.depth(name));
    return this;
  }
  /** The address of element `i` of the i32 array at `base`. */
  element(base: Local, i: Local): this {
    return this.get(base).get(i).i32(2).op(op.shl, op.add);
  }
  inc(l: Local, by = 1): this {
    return this.get(l).i32(by).op(op.add).set(l);
  }
  /** To `miss` unless `text` is at `addr` + `offset` (eight bytes at a time, then four, then one). */
  literal(addr: Local, offset: number, text: string, miss: string): this {
    const le = (from: number, to: number) => [...text.slice(from, to)].reduceRight((v, ch) => (v << 8n) | BigInt(ch.charCodeAt(0)), 0n);
    let k = 0;
    for (; k + 8 <= text.length; k += 8) this.get(addr).load64At(offset + k).i64(le(k, k + 8)).op(op.i64Ne).brIf(miss);
    for (; k + 4 <= text.length; k += 4) this.get(addr).load32At(offset + k).i32(Number(le(k, k + 4))).op(op.ne).brIf(miss);
    for (; k < text.length; k++) this.get(addr).load8At(offset + k).i32(text.charCodeAt(k)).op(op.ne).brIf(miss);
    return this;
  }
  load64At(offset: number): this {
    this.code.push(0x29, 0x00);
    uleb(this.code, offset);
    return this;
  }
  load32At(offset: number): this {
    this.code.push(0x28, 0x00);
    uleb(this.code, offset);
    return this;
  }
  load8At(offset: number): this {
    this.code.push(0x2d, 0x00);
    uleb(this.code, offset);
    return this;
  }
  /** Vector instructions, each after its prefix (a load's memarg after it: alignment hint 0, no offset). */
  vec(...ops: number[]): this {
    for (const o of ops) this.code.push(V128, o, ...(o === vec.load ? [0x00, 0x00] : []));
    return this;
  }
  /** v128.load at the address on the stack plus `offset`. */
  vecLoad(offset: number): this {
    this.code.push(V128, vec.load, 0x00);
    uleb(this.code, offset);
    return this;
  }
  /** Sixteen copies of a byte, as a v128 constant. */
  bytes16(b: number): this {
    return this.op(V128, vec.const, ...new Array<number>(16).fill(b));
  }
  /** memory.copy: [dest, src, length] from the stack. */
  copy(): this {
    return this.op(0xfc, 0x0a, 0x00, 0x00);
  }

}

export function section(out: number[], id: number, contents: number[]): void {
  out.push(id);
  uleb(out, contents.length);
  for (const b of contents) out.push(b);
}

export function name(out: number[], s: string): void {
  uleb(out, s.length);
  for (let k = 0; k < s.length; k++) out.push(s.charCodeAt(k));
}
