module vigil.local/loadtests/gen

go 1.22
