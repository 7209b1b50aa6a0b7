-- Live jobs: an HLS playlist link is a source of its own, followed as it airs.
ALTER TYPE "Platform" ADD VALUE IF NOT EXISTS 'hls';
