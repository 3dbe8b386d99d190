// Image build step: removes the debugging information and the static symbol table from an x86-64
// or arm64 ELF executable (the Node binary, about 15 % of it), as `strip --strip-debug` plus the
// symbol table would, for base images that have no binutils.
//
//   node scripts/strip-elf.mjs IN OUT
//
// Only sections nothing loads are removed (no SHF_ALLOC flag: .debug_*, .symtab, .strtab), and
// only when they sit after every other section's data, as linkers lay them out; the dynamic
// symbols (.dynsym, which native add-ons link against), the program headers and every loaded byte
// stay as they are. Anything else (another layout, a 32-bit or big-endian file) is refused, and
// the caller keeps the binary unstripped.
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: node scripts/strip-elf.mjs IN OUT\n');
  process.exit(2);
}
const fail = (message) => {
  process.stderr.write(`strip-elf: ${input}: ${message}\n`);
  process.exit(1);
};

const elf = readFileSync(input);
if (elf.readUInt32BE(0) !== 0x7f454c46) fail('not an ELF file');
if (elf[4] !== 2 || elf[5] !== 1) fail('only 64-bit little-endian files are handled');
const shoff = Number(elf.readBigUInt64LE(0x28));
const shentsize = elf.readUInt16LE(0x3a);
const shnum = elf.readUInt16LE(0x3c);
const shstrndx = elf.readUInt16LE(0x3e);
if (shentsize !== 64 || shnum === 0 || shstrndx >= shnum) fail('unexpected section header table');

const SHF_ALLOC = 2n;
const SHT_NOBITS = 8;
const sections = [];
for (let i = 0; i < shnum; i++) {
  const at = shoff + i * shentsize;
  sections.push({
    header: elf.subarray(at, at + shentsize),
    nameOffset: elf.readUInt32LE(at),
    type: elf.readUInt32LE(at + 4),
    flags: elf.readBigUInt64LE(at + 8),
    offset: Number(elf.readBigUInt64LE(at + 0x18)),
    size: Number(elf.readBigUInt64LE(at + 0x20)),
    link: elf.readUInt32LE(at + 0x28),
  });
}
const names = sections[shstrndx];
const nameOf = (s) => {
  const start = names.offset + s.nameOffset;
  return elf.toString('latin1', start, elf.indexOf(0, start));
};
const removable = (s, i) =>
  i !== shstrndx && (s.flags & SHF_ALLOC) === 0n && /^(?:\.debug_\w+|\.symtab|\.strtab)$/.test(nameOf(s));

const removed = new Set(sections.flatMap((s, i) => (removable(s, i) ? [i] : [])));
if (removed.size === 0) fail('nothing to strip');
const cut = Math.min(...[...removed].map((i) => sections[i].offset));
sections.forEach((s, i) => {
  if (removed.has(i) || i === shstrndx || s.type === SHT_NOBITS || s.size === 0) return;
  if (s.offset + s.size > cut) fail(`section ${nameOf(s)} lies after the ones to remove`);
  if (removed.has(s.link)) fail(`section ${nameOf(s)} links to a removed section`);
});
// Kept sections keep their indices when every removed one comes after them (but .shstrtab).
const kept = sections.map((_, i) => i).filter((i) => !removed.has(i));
kept.forEach((i, at) => {
  if (i !== at && i !== shstrndx) fail('removed sections are not the last ones');
});

const namesData = elf.subarray(names.offset, names.offset + names.size);
const namesOffset = cut;
const newShoff = Math.ceil((namesOffset + names.size) / 8) * 8;
const result = Buffer.alloc(newShoff + kept.length * shentsize);
elf.copy(result, 0, 0, cut);
namesData.copy(result, namesOffset);
kept.forEach((i, at) => {
  const header = Buffer.from(sections[i].header);
  if (i === shstrndx) header.writeBigUInt64LE(BigInt(namesOffset), 0x18);
  header.copy(result, newShoff + at * shentsize);
});
result.writeBigUInt64LE(BigInt(newShoff), 0x28);
result.writeUInt16LE(kept.length, 0x3c);
result.writeUInt16LE(kept.indexOf(shstrndx), 0x3e);
writeFileSync(output, result, { mode: 0o755 });
process.stdout.write(
  `strip-elf: ${output}: ${(result.length / 1e6).toFixed(1)} MB (was ${(elf.length / 1e6).toFixed(1)} MB), ` +
    `${removed.size} sections removed\n`,
);
