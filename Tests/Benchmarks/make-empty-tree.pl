#!/usr/bin/perl
# make-empty-tree.pl ROOT ENTRIES: creates ROOT holding ENTRIES entries in all (ROOT itself counts):
# folders of up to 1,000 empty files (ROOT/d0000/file-000000.txt ...), the shape of a node_modules
# or a photo library at its most numerous. Empty files, so the offer and the entries' metadata are
# what a transfer of it costs, not the bytes.
use strict;
use warnings;

my ($root, $entries) = @ARGV;
die "usage: make-empty-tree.pl ROOT ENTRIES\n" unless defined $entries && $entries =~ /^\d+$/ && $entries >= 2;

mkdir $root or die "$root: $!\n";
my $left = $entries - 1;
my $folder_number = 0;
my $file_number = 0;
while ($left > 0) {
    my $folder = sprintf('%s/d%04d', $root, $folder_number++);
    mkdir $folder or die "$folder: $!\n";
    $left--;
    for (1 .. 1000) {
        last if $left == 0;
        my $path = sprintf('%s/file-%06d.txt', $folder, $file_number++);
        open(my $file, '>', $path) or die "$path: $!\n";
        close $file;
        $left--;
    }
}
