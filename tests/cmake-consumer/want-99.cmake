# Asks for a version no libggmlviz has yet: find_package must refuse it.
find_package(ggmlviz 99.0 REQUIRED)
