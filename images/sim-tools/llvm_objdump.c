/* llvm-objdump stand-in for the simulator image: disassembles the code
 * objects the simulator's debug-agent mode saves (agent_report.h), in
 * llvm-objdump's output format for AMDGPU:
 *
 *   <file>:	file format elf64-amdgpu
 *
 *   Disassembly of section .text:
 *
 *   0000000000001000 <kernel>:
 *   	s_trap 2                                                   // 000000001024: BF920002
 *
 * Options other than the file names (-d, --disassemble-all, -C, ...) are
 * accepted and ignored. A file that is not such a code object gets
 * llvm-objdump's "not recognized" error (exit 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CO_MAX (1024 * 1024)

static int dump(const char *path)
{
	static char buf[CO_MAX + 1];
	unsigned long long text = 0x1000;
	char *line, *save = NULL;
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "llvm-objdump: error: '%s': No such file or directory\n", path);
		return 1;
	}
	n = fread(buf, 1, CO_MAX, f);
	fclose(f);
	buf[n] = '\0';
	if (n < 5 || memcmp(buf, "\177ELF\n", 5) || !strstr(buf, "\nHRRSIM-CODE-OBJECT 1\n")) {
		fprintf(stderr, "llvm-objdump: error: '%s': The file was not recognized as a "
				"valid object file\n", path);
		return 1;
	}
	printf("\n%s:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n", path);
	for (line = strtok_r(buf + 5, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "text=", 5)) {
			text = strtoull(line + 5, NULL, 16);
		} else if (!strncmp(line, "symbol=", 7)) {
			printf("\n%016llx <%s>:\n", text, line + 7);
		} else if (!strncmp(line, "insn=", 5)) {
			char *enc, *insn;
			unsigned long long off = strtoull(line + 5, &enc, 16);

			/* "insn=<off> <word> [<word>] <text>": words are 8 hex digits. */
			enc += strspn(enc, " ");
			insn = enc;
			while (strspn(insn, "0123456789ABCDEF") == 8 && (insn[8] == ' ' || !insn[8]))
				insn += 8 + (insn[8] == ' ');
			printf("\t%-58s // %012llX: %.*s\n", insn, text + off,
			       (int)(insn > enc ? insn - enc - 1 : 0), enc);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0, files = 0;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		files++;
		rc |= dump(argv[i]);
	}
	if (!files) {
		fprintf(stderr, "llvm-objdump: error: 'a.out': No such file or directory\n");
		return 1;
	}
	return rc;
}
