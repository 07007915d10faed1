/**
 * The bytes the flow-control scenarios stream: a block of 1 MiB + 7 bytes whose every position
 * differs from its neighbours (so a lost, repeated or reordered chunk changes the SHA-256), the
 * same block for a child (`cat` of a file holding it) and for a handler (emitted from memory).
 */
import { createHash } from "node:crypto";

/** One block; its odd length keeps chunk boundaries from lining up with it. */
export const patternBlockBytes = 1024 * 1024 + 7;

/** The block. */
export function patternBlock(): Buffer {
  const block = Buffer.alloc(patternBlockBytes);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) % 251;
  return block;
}

/** The first `total` bytes of the block repeated, as a SHA-256 hex digest. */
export function patternDigest(total: number): string {
  const block = patternBlock();
  const hash = createHash("sha256");
  let left = total;
  while (left > 0) {
    const take = Math.min(left, block.length);
    hash.update(take === block.length ? block : block.subarray(0, take));
    left -= take;
  }
  return hash.digest("hex");
}
