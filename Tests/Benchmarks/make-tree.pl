#!/usr/bin/perl
# make-tree.pl ROOT COUNT: creates ROOT with COUNT files of 1-16 KiB in folders of 100 files
# (ROOT/d00/f00000.bin ...), sizes and contents fixed by a xorshift generator, so every run sends
# the same tree. Prints the total number of file bytes.
use strict;
use warnings;

my ($root, $count) = @ARGV;
die "usage: make-tree.pl ROOT COUNT\n" unless defined $count && $count =~ /^\d+$/;

my $state = 0x2545F491;
sub next_random {
    $state ^= ($state << 13) & 0xFFFFFFFF;
    $state ^= $state >> 17;
    $state ^= ($state << 5) & 0xFFFFFFFF;
    return $state;
}

# 64 KiB of pseudo-random bytes; each file is a window of it.
my $pool = pack('V*', map { next_random() } 1 .. 16384);

mkdir $root or die "$root: $!\n";
my $total = 0;
for my $index (0 .. $count - 1) {
    my $folder = sprintf('%s/d%02d', $root, int($index / 100));
    if ($index % 100 == 0) { mkdir $folder or die "$folder: $!\n"; }
    my $size = 1024 + next_random() % (15 * 1024 + 1);
    my $offset = ($index * 7919) % (length($pool) - $size);
    my $path = sprintf('%s/f%05d.bin', $folder, $index);
    open(my $file, '>:raw', $path) or die "$path: $!\n";
    print {$file} substr($pool, $offset, $size) or die "$path: $!\n";
    close $file or die "$path: $!\n";
    $total += $size;
}
print "$total\n";
