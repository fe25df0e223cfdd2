/*
 * KVM probe guest (GNU as, 32-bit object, linked flat at 1 MiB; kvm-probe.ts holds the bytes and says how to
 * rebuild them). QEMU's multiboot loader enters it in 32-bit protected mode. It prints 'P' on COM1, builds
 * identity-mapped 2 MiB pages for the first GiB, turns on PAE, long mode (EFER MSR) and paging, prints 'L'
 * from 64-bit code, touches 32 MiB of memory (a broken nested KVM takes seconds per MiB here), reads the TSC
 * and the APIC base MSR, prints 'K', then ends QEMU through isa-debug-exit (port 0xf4) with exit status
 * (0x21 << 1) | 1 = 67.
 */
  .code32
  .set BASE, 0x100000
  .globl _start
_start:
header:                               /* multiboot header with the a.out kludge (flat binary) */
  .long 0x1BADB002
  .long 0x00010000
  .long -(0x1BADB002 + 0x00010000)
  .long BASE + (header - _start)
  .long BASE
  .long BASE + (end - _start)
  .long BASE + (end - _start)
  .long BASE + (entry - _start)
entry:
  cli
  mov $0x3f8, %dx
  mov $'P', %al
  out %al, %dx
  mov $0x200000, %edi                  /* PML4, PDPT, PD at 2 MiB */
  xor %eax, %eax
  mov $(3*4096/4), %ecx
  rep stosl
  movl $0x201003, 0x200000
  movl $0x202003, 0x201000
  mov $0x202000, %edi
  mov $0x83, %eax                      /* present, writable, 2 MiB page */
  mov $512, %ecx
1:
  mov %eax, (%edi)
  movl $0, 4(%edi)
  add $0x200000, %eax
  add $8, %edi
  loop 1b
  mov %cr4, %eax
  or $0x20, %eax                       /* PAE */
  mov %eax, %cr4
  mov $0x200000, %eax
  mov %eax, %cr3
  mov $0xC0000080, %ecx                /* EFER.LME */
  rdmsr
  or $0x100, %eax
  wrmsr
  mov %cr0, %eax
  or $0x80000001, %eax                 /* PG, PE */
  mov %eax, %cr0
  lgdt BASE + (gdtr - _start)
  ljmp $0x08, $(BASE + (long64 - _start))
  .code64
long64:
  mov $0x3f8, %dx
  mov $'L', %al
  out %al, %dx
  mov $0x1000000, %rdi                 /* touch 32 MiB from 16 MiB */
  mov $0x2000000, %rcx
  xor %eax, %eax
  rep stosb
  rdtsc
  mov $0x1b, %ecx                      /* IA32_APIC_BASE */
  rdmsr
  mov $0x3f8, %dx
  mov $'K', %al
  out %al, %dx
  mov $0xf4, %dx
  mov $0x21, %al
  out %al, %dx
2:
  hlt
  jmp 2b
  .align 8
gdt:
  .quad 0
  .quad 0x00AF9A000000FFFF             /* 64-bit code segment */
gdtr:
  .word 15
  .long BASE + (gdt - _start)
end:
