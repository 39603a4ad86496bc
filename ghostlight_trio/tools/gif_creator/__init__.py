"""``gif_creator``: record browser work on one tab and export it as an animated GIF. The entry
is ``tool.GifCreator``; ``recorder`` keeps the recordings, ``encoder`` makes the GIF."""
